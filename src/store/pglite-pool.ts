// The embedded store's main-thread side: a pg.Pool whose connections carry wire-protocol bytes to the PGlite worker.
import { Duplex } from 'node:stream';
import pg from 'pg';
import { type HostSocket, PgliteHost, templatePath } from './pglite-host.js';

/**
 * A socket-like stream for pg's own Connection: what pg writes in one turn of the event loop (Parse, Bind,
 * Describe, Execute, Sync) goes to the worker as one message, and the worker's answer is read back as if from
 * a server, so pg's parsing, types and cursors work unchanged.
 */
class WorkerSocket extends Duplex implements HostSocket {
  private pending: Buffer[] = [];
  private scheduled = false;

  constructor(private readonly host: PgliteHost) {
    super();
  }

  connect(): this {
    this.host.attach(this).then(
      () => this.emit('connect'),
      (e: Error) => this.destroy(e),
    );
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  deliver(chunks: ArrayBuffer[]): void {
    if (this.destroyed) return;
    for (const chunk of chunks) this.push(Buffer.from(chunk));
  }

  fail(error: Error): void {
    this.destroy(error);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (e?: Error | null) => void): void {
    this.pending.push(chunk);
    this.schedule();
    callback();
  }

  override _final(callback: (e?: Error | null) => void): void {
    this.host.detach(this);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (e?: Error | null) => void): void {
    this.host.detach(this);
    callback(error);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      const chunks = this.pending;
      this.pending = [];
      // Once pg has ended the stream, what is left is its Terminate message, which PGlite ignores anyway.
      if (this.destroyed || this.writableEnded) return;
      // A fresh buffer (never Node's shared pool) so it can be transferred to the worker without a copy.
      const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      this.host.send(this, bytes);
    });
  }
}

/**
 * Every client of a PGlite pool shares the one PGlite session. pg.Pool destroys a client whose query failed
 * (pool.query releases it with the error), which costs a new connection for nothing: an SQL error leaves the
 * session usable, so a failed query gives its client back intact.
 */
class PglitePool extends pg.Pool {
  override query(...args: unknown[]): never {
    if (typeof args[args.length - 1] === 'function') throw new Error('callback queries are not supported');
    return (async () => {
      const client = await this.connect();
      try {
        return await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        client.release();
      }
    })() as never;
  }
}

interface Listener {
  onNotify: (payload: string) => void;
  onGap: () => void;
}

export interface PgliteWorkerStore {
  pool: pg.Pool;
  /** Subscribes to `channel` (a checked name); live while the worker that ran LISTEN answers. */
  listen(channel: string, listener: Listener): Promise<{ isLive(): boolean; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Opens PGlite on `pgdata` in a worker; a round trip longer than `timeoutMs` ends and reopens it. A new folder
 * is filled from the fresh-cluster `template` (pglite-worker.ts), by default the one beside the installed PGlite.
 */
export function openPgliteWorker(
  pgdata: string,
  timeoutMs: number,
  template: string | undefined = templatePath(),
): PgliteWorkerStore {
  const channels = new Map<string, Set<Listener>>();
  // Bumped by each restart; a subscription is live once LISTEN ran again on the current worker.
  let epoch = 0;
  let listenedEpoch = 0;

  const host = new PgliteHost(
    pgdata,
    timeoutMs,
    {
      onLost: () => {
        epoch++;
        for (const listeners of channels.values()) for (const listener of listeners) listener.onGap();
      },
      onRestart: () => void relisten(epoch),
    },
    template,
  );
  const pool = new PglitePool({
    stream: () => new WorkerSocket(host),
    user: 'postgres',
    database: 'postgres',
    ssl: false,
    max: 1,
    idleTimeoutMillis: 0,
  });
  // A client whose worker was ended fails its queries (the callers see the error) and emits 'error' too,
  // possibly while checked out: that event is not a second failure to act on.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    client.on('notification', (message) => {
      for (const listener of channels.get(message.channel) ?? []) listener.onNotify(message.payload ?? '');
    });
  });

  async function relisten(at: number): Promise<void> {
    try {
      for (const channel of channels.keys()) await pool.query(`LISTEN ${channel}`);
    } catch {
      // Not live until a later restart listens again: the auth cache then remembers nothing, which is safe.
      return;
    }
    if (at !== epoch) return;
    listenedEpoch = at;
    for (const listeners of channels.values()) for (const listener of listeners) listener.onGap();
  }

  return {
    pool,
    async listen(channel, listener) {
      if (!channels.has(channel)) {
        await pool.query(`LISTEN ${channel}`);
        if (!channels.has(channel)) channels.set(channel, new Set());
      }
      channels.get(channel)?.add(listener);
      return {
        isLive: () => host.isLive() && listenedEpoch === epoch,
        async close() {
          const listeners = channels.get(channel);
          listeners?.delete(listener);
          if (listeners?.size !== 0) return;
          channels.delete(channel);
          await (pool.query(`UNLISTEN ${channel}`) as Promise<unknown>).catch(() => {});
        },
      };
    },
    async close() {
      await pool.end();
      await host.close();
    },
  };
}
