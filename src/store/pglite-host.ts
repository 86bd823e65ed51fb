// Runs PGlite in a worker thread and ends it when one round trip outlasts the statement limit, then reopens it.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BULK_THREAD_NICENESS } from '../thread-priority.js';
import {
  type FromWorker,
  type PgliteArtifacts,
  type ToWorker,
  WORKER_SOURCE,
  type WorkerOptions,
} from './pglite-worker.js';

/** One connection's end of the host: where its answers go, and how it learns that its backend is gone. */
export interface HostSocket {
  deliver(chunks: ArrayBuffer[]): void;
  fail(error: Error): void;
}

interface Job {
  socket: HostSocket;
  bytes: Uint8Array;
}

/** A PostgreSQL-like error, so the code's existing mapping of SQLSTATE codes applies. */
function pgLikeError(code: string, severity: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity });
}

const statementTimeout = () =>
  pgLikeError(
    '57014',
    'ERROR',
    'canceling statement due to statement timeout (the embedded store was restarted)',
  );
// 57P01 (admin_shutdown) is what PostgreSQL sends to the sessions it ends.
const connectionLost = (why: string) => pgLikeError('57P01', 'FATAL', `terminating connection: ${why}`);

// The lib settings leave out the WebAssembly global's type; this is the one call used.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<PgliteArtifacts['pgliteWasmModule']> };

const pgliteEntry = () => createRequire(import.meta.url).resolve('@electric-sql/pglite');

/**
 * Where a fresh cluster's template is kept (pglite-worker.ts): node_modules/.cache/playbase, beside the PGlite it
 * was made by, named by that PGlite's version. Unset when PGlite's package cannot be read.
 */
export function templatePath(): string | undefined {
  try {
    const pkg = dirname(dirname(pgliteEntry()));
    const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
    if (!/^[0-9A-Za-z.+-]+$/.test(version)) return undefined;
    return join(pkg, '..', '..', '.cache', 'playbase', `pglite-${version}-datadir.tar`);
  } catch {
    return undefined;
  }
}

/** PGlite's WebAssembly and file bundle, compiled and read once per process and shared by every worker. */
let artifacts: Promise<PgliteArtifacts> | undefined;
function loadArtifacts(): Promise<PgliteArtifacts> {
  artifacts ??= (async () => {
    // PGlite keeps these beside its entry module.
    const dist = dirname(pgliteEntry());
    const [pglite, initdb, bundle] = await Promise.all(
      ['pglite.wasm', 'initdb.wasm', 'pglite.data'].map((name) => readFile(join(dist, name))),
    );
    return {
      pgliteWasmModule: await WebAssembly.compile(pglite as Buffer),
      initdbWasmModule: await WebAssembly.compile(initdb as Buffer),
      fsBundle: new Blob([bundle as Buffer]),
    };
  })();
  artifacts.catch(() => {
    artifacts = undefined;
  });
  return artifacts;
}

/** One PGlite worker: started, answering, or ended. */
interface Generation {
  worker: Worker | undefined;
  ready: Promise<void>;
  isReady: boolean;
  sockets: Set<HostSocket>;
  ended: boolean;
}

/** The statement limit a simple-protocol `SET`/`RESET statement_timeout` asks for: ms, null for the default. */
function statementTimeoutSetting(bytes: Uint8Array): number | null | undefined {
  // A simple Query message: 'Q', a 4-byte length, the text, NUL. Only short ones can be these two commands.
  if (bytes[0] !== 0x51 || bytes.length > 100) return undefined;
  const text = Buffer.from(bytes.subarray(5, bytes.length - 1)).toString('latin1');
  if (/^\s*RESET\s+statement_timeout\s*;?\s*$/i.test(text)) return null;
  const set = /^\s*SET\s+(?:SESSION\s+)?statement_timeout\s*(?:=|TO)\s*'?(\d{1,10})'?\s*;?\s*$/i.exec(text);
  return set ? Number(set[1]) : undefined;
}

export class PgliteHost {
  private current: Generation | undefined;
  /**
   * The session's own limit, as PostgreSQL's `SET statement_timeout` gives one (index builds ask for minutes);
   * 0 is none. PGlite has one session: a restart returns to the default.
   */
  private sessionTimeoutMs: number | undefined;
  private readonly queue: Job[] = [];
  private inFlight: { job: Job; timer: NodeJS.Timeout; id: number } | undefined;
  private nextId = 1;
  private closed = false;

  /**
   * `events.onLost` runs when a worker is ended, `events.onRestart` once its replacement answers (the session
   * state of the old one, LISTEN included, is gone).
   */
  constructor(
    private readonly pgdata: string,
    private readonly timeoutMs: number,
    private readonly events: { onLost(): void; onRestart(): void },
    /** The fresh-cluster template a new folder is filled from (pglite-worker.ts); unset, none. */
    private readonly template?: string,
  ) {}

  /** Attaches a socket to the running worker (starting one if needed) once it answers. */
  async attach(socket: HostSocket): Promise<void> {
    if (this.closed) throw connectionLost('the store is closed');
    const generation = this.current ?? this.start();
    await generation.ready;
    if (generation.ended) throw connectionLost('the embedded store restarted');
    generation.sockets.add(socket);
  }

  detach(socket: HostSocket): void {
    this.current?.sockets.delete(socket);
  }

  /** Queues protocol bytes of `socket`; its answer arrives through socket.deliver. */
  send(socket: HostSocket, bytes: Uint8Array): void {
    if (!this.current?.sockets.has(socket)) {
      socket.fail(connectionLost('the embedded store restarted'));
      return;
    }
    const setting = statementTimeoutSetting(bytes);
    if (setting !== undefined) this.sessionTimeoutMs = setting ?? undefined;
    this.queue.push({ socket, bytes });
    this.pump();
  }

  isLive(): boolean {
    return !this.closed && this.current !== undefined && !this.current.ended;
  }

  async close(): Promise<void> {
    this.closed = true;
    const generation = this.current;
    this.current = undefined;
    if (!generation) return;
    this.end(generation, connectionLost('the store is closed'));
    await generation.ready.catch(() => {});
    const worker = generation.worker;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (m: FromWorker) => m.kind === 'closed' && resolve());
    });
    worker.ref();
    worker.postMessage({ kind: 'close' } satisfies ToWorker);
    // A clean close checkpoints; a worker that does not answer in time is ended as after a timeout.
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(this.timeoutMs, 10_000));
    });
    await Promise.race([closed, limit]);
    clearTimeout(timer);
    await worker.terminate();
  }

  /** Starts a worker once `after` (the end of the previous one) settles; sockets attach when it is ready. */
  private start(after: Promise<unknown> = Promise.resolve()): Generation {
    const generation: Generation = {
      worker: undefined,
      ready: Promise.resolve(),
      isReady: false,
      sockets: new Set(),
      ended: false,
    };
    generation.ready = after.then(() => this.spawn(generation));
    // A start that fails (a folder PGlite cannot open) is retried by the next attach, not in a loop.
    generation.ready.catch(() => {
      if (this.current === generation) this.current = undefined;
      generation.ended = true;
    });
    this.current = generation;
    return generation;
  }

  private async spawn(generation: Generation): Promise<void> {
    const compiled = await loadArtifacts();
    if (generation.ended) throw connectionLost('the store is closed');
    const workerData: WorkerOptions = {
      pgdata: this.pgdata,
      pgliteEntry: pgliteEntry(),
      template: this.template,
      niceness: BULK_THREAD_NICENESS,
      ...compiled,
    };
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
    generation.worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.kind !== 'ready') return this.answered(generation, message);
        generation.isReady = true;
        resolve();
        this.pump();
      });
      const crashed = (e: Error) => {
        reject(e);
        if (generation.isReady) this.restart(generation, connectionLost(e.message));
      };
      worker.once('error', crashed);
      worker.once('exit', (code) => crashed(new Error(`the embedded store's thread exited (code ${code})`)));
    });
  }

  private pump(): void {
    const generation = this.current;
    const worker = generation?.isReady && !generation.ended ? generation.worker : undefined;
    if (this.inFlight || !generation || !worker) return;
    let job = this.queue.shift();
    while (job && !generation.sockets.has(job.socket)) job = this.queue.shift();
    if (job) {
      const id = this.nextId++;
      const bytes = job.bytes;
      const limit = this.sessionTimeoutMs ?? this.timeoutMs;
      // 0 means no limit; a timer that never fires keeps the in-flight bookkeeping uniform.
      const timer = setTimeout(() => this.timedOut(generation), limit === 0 ? 2 ** 31 - 1 : limit);
      this.inFlight = { job, timer, id };
      worker.postMessage({ kind: 'exec', id, bytes: bytes.buffer as ArrayBuffer } satisfies ToWorker, [
        bytes.buffer as ArrayBuffer,
      ]);
    }
    this.refWhileBusy();
  }

  private answered(generation: Generation, message: FromWorker): void {
    if (generation !== this.current || !this.inFlight) return;
    if (message.kind !== 'answer' && message.kind !== 'failed') return;
    if (message.id !== this.inFlight.id) return;
    if (message.kind === 'failed') {
      // PGlite threw, or answered in a way that shows its session broken: it is reopened.
      this.restart(
        generation,
        connectionLost(`the embedded store failed (${message.message}) and restarted`),
      );
      return;
    }
    const { job, timer } = this.inFlight;
    clearTimeout(timer);
    this.inFlight = undefined;
    job.socket.deliver(message.chunks);
    this.pump();
  }

  private timedOut(generation: Generation): void {
    if (generation !== this.current) return;
    this.restart(generation, statementTimeout());
  }

  /** Ends `generation` (failing its sockets) and, unless closed, starts the next one on the same folder. */
  private restart(generation: Generation, inFlightError: Error): void {
    if (generation.ended) return;
    this.end(generation, inFlightError);
    this.sessionTimeoutMs = undefined;
    if (generation !== this.current || this.closed) return;
    this.events.onLost();
    // The old thread must have stopped writing before another PGlite opens the folder.
    const next = this.start(generation.worker?.terminate() ?? Promise.resolve());
    next.ready.then(
      () => this.events.onRestart(),
      () => {},
    );
  }

  private end(generation: Generation, inFlightError: Error): void {
    if (generation.ended) return;
    generation.ended = true;
    const failed = this.inFlight?.job.socket;
    if (this.inFlight) clearTimeout(this.inFlight.timer);
    this.inFlight = undefined;
    this.queue.length = 0;
    if (failed) failed.fail(inFlightError);
    for (const socket of generation.sockets) {
      if (socket !== failed) socket.fail(connectionLost('the embedded store restarted'));
    }
    generation.sockets.clear();
    this.refWhileBusy();
  }

  /** Keeps the process alive while an answer is awaited, never for an idle store (as PGlite in-thread did). */
  private refWhileBusy(): void {
    const worker = this.current?.worker;
    if (!worker) return;
    if (this.inFlight || this.queue.length > 0 || !this.current?.isReady) worker.ref();
    else worker.unref();
  }
}
