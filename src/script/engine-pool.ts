// The sandbox threads, seen from the event loop: a fixed number of threads, each running one script at a time;
// scripts wait in a queue per game, served in turn, so one game's flood of scripts waits behind itself and not
// in front of the others. A thread that does not finish its script well past the deadline is ended and
// replaced (the script answers TIMEOUT).
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { FromWorker, HostReply, Job, JobResult, ToWorker } from './protocol.js';

/** Answers one host call of a running script (JSON text in, JSON text or nothing out). */
export type HostHandler = (op: string, args: string) => Promise<string | undefined>;

const ENTRY = new URL('./engine-worker.js', import.meta.url);

// As compute/pool.ts: a build runs the compiled entry; the sources start the TypeScript one through tsx.
const fromSource: { startSourceWorker(entry: URL, options?: object): Worker } | undefined =
  import.meta.url.endsWith('.ts')
    ? await import(new URL('./source-worker.dev.ts', import.meta.url).href)
    : undefined;

/** Past the deadline, how long a thread may take to stop by itself before it is ended. */
const HARD_STOP_GRACE_MS = 1000;

interface Queued {
  game: string;
  job: Job;
  host: HostHandler;
  resolve(r: JobResult): void;
}

interface Thread {
  worker: Worker;
  flag: Int32Array;
  replies: MessagePort;
  ready: Promise<void>;
  current: (Queued & { id: number; watchdog: NodeJS.Timeout }) | undefined;
}

export class EnginePool {
  private readonly threads: Thread[] = [];
  private readonly queues = new Map<string, Queued[]>();
  private queued = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly maxQueued: number,
  ) {}

  /** Scripts waiting for a thread. */
  get waiting(): number {
    return this.queued;
  }

  /** Runs the job on a sandbox thread; rejects when the queue is full. */
  run(game: string, job: Job, host: HostHandler): Promise<JobResult> {
    if (this.closed) return Promise.reject(new Error('the script engine is closed'));
    if (this.queued >= this.maxQueued) return Promise.reject(new Error('too many scripts waiting'));
    while (this.threads.length < this.size) this.threads.push(this.start());
    return new Promise((resolve) => {
      const list = this.queues.get(game) ?? [];
      list.push({ game, job, host, resolve });
      this.queues.set(game, list);
      this.queued++;
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }

  private start(): Thread {
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const options = { workerData: { signal, replies: port2 }, transferList: [port2] };
    const worker = fromSource ? fromSource.startSourceWorker(ENTRY, options) : new Worker(ENTRY, options);
    worker.unref();
    let markReady: () => void = () => {};
    const thread: Thread = {
      worker,
      flag: new Int32Array(signal),
      replies: port1,
      ready: new Promise((r) => {
        markReady = r;
      }),
      current: undefined,
    };
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') markReady();
      else if (m.type === 'host') this.answer(thread, m);
      else if (m.type === 'done' && thread.current?.id === m.id) this.finish(thread, m.result);
    });
    worker.on('error', () => this.replace(thread));
    worker.on('exit', () => this.replace(thread));
    return thread;
  }

  /** Next game in turn: the first queue's head; that game's queue then goes to the back. */
  private take(): Queued | undefined {
    for (const [game, list] of this.queues) {
      const next = list.shift();
      this.queues.delete(game);
      if (list.length > 0) this.queues.set(game, list);
      if (next) {
        this.queued--;
        return next;
      }
    }
    return undefined;
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.current || this.queued === 0) continue;
      const next = this.take();
      if (!next) return;
      const id = this.nextId++;
      const current = { ...next, id, watchdog: undefined as unknown as NodeJS.Timeout };
      thread.current = current;
      // The budget counts from when the script starts on its thread, not from when it was queued.
      void thread.ready.then(() => {
        if (thread.current?.id !== id) return;
        current.watchdog = setTimeout(() => this.hardStop(thread), next.job.timeLimitMs + HARD_STOP_GRACE_MS);
        thread.worker.postMessage({ type: 'run', id, job: next.job } satisfies ToWorker);
      });
    }
  }

  private answer(thread: Thread, m: Extract<FromWorker, { type: 'host' }>): void {
    const current = thread.current;
    if (!current || current.id !== m.id) return;
    const reply = (r: HostReply) => {
      if (thread.current?.id !== m.id) return;
      thread.replies.postMessage(r);
      Atomics.store(thread.flag, 0, 1);
      Atomics.notify(thread.flag, 0);
    };
    current.host(m.op, m.args).then(
      (value) => reply({ seq: m.seq, ok: true, value }),
      (e: Error) => reply({ seq: m.seq, ok: false, error: e.message }),
    );
  }

  private finish(thread: Thread, result: JobResult): void {
    const current = thread.current;
    if (!current) return;
    clearTimeout(current.watchdog);
    thread.current = undefined;
    current.resolve(result);
    this.dispatch();
  }

  private hardStop(thread: Thread): void {
    const current = thread.current;
    if (!current) return;
    this.finish(thread, {
      outcome: 'timeout',
      scriptData: {},
      errors: {},
      logs: [],
      droppedLogs: 0,
      failure: {
        message: 'the script ran past its time budget and its thread was ended',
        at: null,
        stack: '',
      },
      ms: current.job.timeLimitMs + HARD_STOP_GRACE_MS,
    });
    this.replace(thread);
  }

  private replace(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    const current = thread.current;
    thread.current = undefined;
    if (current) {
      clearTimeout(current.watchdog);
      current.resolve({
        outcome: 'error',
        scriptData: {},
        errors: {},
        logs: [],
        droppedLogs: 0,
        failure: { message: 'the script thread stopped', at: null, stack: '' },
        ms: 0,
      });
    }
    void thread.worker.terminate();
    if (!this.closed) {
      this.threads.push(this.start());
      this.dispatch();
    }
  }
}
