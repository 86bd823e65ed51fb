// Compute threads: where work that grows with a request's input runs, so that it never holds the event loop
// (issue 20: a 4 MB update once froze /healthz for seconds). A task is a pure function of its input, plus the
// statements it sends back through this thread's pool. The event loop keeps the connections and the HTTP
// server; a thread holds a task's documents, parses them, applies the update, builds the answer.
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import { receiveError, sendError } from './errors.js';
import type { DbRequest, FromWorker, ToWorker } from './protocol.js';
import { runStatement } from './statements.js';

interface Pending {
  resolve(output: unknown): void;
  reject(error: Error): void;
  thread: Thread;
  db: pg.Pool | undefined;
  clients: Map<number, pg.PoolClient>;
}

interface Thread {
  worker: Worker;
  inFlight: number;
}

/**
 * A build runs the thread's entry as compiled JavaScript. The sources (`npm start`, tests) have no such file: there
 * a development-only module, left out of builds, starts the TypeScript entry (tsx finds `x.ts` for `x.js`).
 */
const fromSource: { startSourceWorker(entry: URL): Worker } | undefined = import.meta.url.endsWith('.ts')
  ? await import(new URL('./source-worker.dev.ts', import.meta.url).href)
  : undefined;

function startWorker(entry: URL): Worker {
  if (fromSource) return fromSource.startSourceWorker(entry);
  return new Worker(entry);
}

export class ComputePool {
  private readonly threads: Thread[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextClient = 1;
  private closed = false;

  /** `entry`: the module a thread runs, one that calls serveTasks (worker.ts) with its tasks, as a `.js` URL. */
  constructor(
    private readonly size: number,
    private readonly entry: URL,
  ) {}

  /** Runs the named task on the least busy thread; its statements run on `db`. */
  run(name: string, input: unknown, db: pg.Pool | undefined): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the compute threads are closed'));
    const thread = this.pick();
    const id = this.nextId++;
    thread.inFlight++;
    return new Promise((resolve, reject) => {
      const task: Pending = { resolve, reject, thread, db, clients: new Map() };
      this.pending.set(id, task);
      try {
        thread.worker.postMessage({ type: 'task', id, name, input, db: db !== undefined } satisfies ToWorker);
      } catch (e) {
        // An input structured clone cannot copy: nothing was sent, so the task ends here.
        this.finish(id, task);
        reject(e);
      }
    });
  }

  /** Starts every thread now; otherwise each starts with the first task that needs it. */
  warm(): void {
    while (!this.closed && this.threads.length < this.size) this.spawn();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }

  private pick(): Thread {
    if (this.threads.length < this.size) {
      const free = this.threads.find((t) => t.inFlight === 0);
      if (free) return free;
      return this.spawn();
    }
    return this.threads.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  }

  private spawn(): Thread {
    const thread: Thread = { worker: startWorker(this.entry), inFlight: 0 };
    thread.worker.unref();
    thread.worker.on('message', (m: FromWorker) => this.received(thread, m));
    thread.worker.on('error', (e) => this.lost(thread, e));
    thread.worker.on('exit', (code) => this.lost(thread, new Error(`a compute thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }

  private received(thread: Thread, m: FromWorker): void {
    if (m.type === 'done') {
      const task = this.pending.get(m.id);
      if (!task) return;
      this.finish(m.id, task);
      if (m.ok) task.resolve(m.output);
      else task.reject(receiveError(m.error));
    } else if (m.type === 'db') {
      const task = this.pending.get(m.task);
      const reply = (message: ToWorker) => thread.worker.postMessage(message);
      if (!task?.db) {
        reply({ type: 'db', id: m.id, ok: false, error: sendError(new Error('no database for this task')) });
        return;
      }
      this.statement(task, m.request).then(
        (result) => reply({ type: 'db', id: m.id, ok: true, result }),
        (e) => reply({ type: 'db', id: m.id, ok: false, error: sendError(e) }),
      );
    }
  }

  private async statement(task: Pending, request: DbRequest) {
    const db = task.db!;
    switch (request.op) {
      case 'connect': {
        const client = await db.connect();
        const id = this.nextClient++;
        task.clients.set(id, client);
        return { client: id };
      }
      case 'release': {
        task.clients
          .get(request.client)
          ?.release(request.failed ? new Error('released after a failure') : undefined);
        task.clients.delete(request.client);
        return null;
      }
      case 'query': {
        if (request.client === undefined) return runStatement(db, request.text, request.values);
        const client = task.clients.get(request.client);
        if (!client) throw new Error('this connection was released');
        return runStatement(client, request.text, request.values);
      }
    }
  }

  /** A task's end: its connections go back (a connection still held is ended, never reused mid-transaction). */
  private finish(id: number, task: Pending): void {
    this.pending.delete(id);
    task.thread.inFlight--;
    for (const client of task.clients.values()) client.release(new Error('the task ended holding it'));
    task.clients.clear();
  }

  private lost(thread: Thread, error: Error): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    for (const [id, task] of this.pending) {
      if (task.thread !== thread) continue;
      this.finish(id, task);
      task.reject(error);
    }
  }
}
