// The sandbox threads, seen from the event loop: a fixed number of threads, each running one script at a time;
// scripts wait in a queue per game, served in turn, so one game's flood of scripts waits behind itself and not
// in front of the others. A thread that does not finish its script well past the deadline is ended and
// replaced (the script answers TIMEOUT).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { FromWorker, HostReply, Job, JobResult, ToWorker } from './protocol.js';
import { type MemoryLayout, memoryLayout } from './snapshot.js';

/**
 * Answers one host call of a running script (JSON text in, JSON text or nothing out). `nest` runs another job on
 * the calling script's thread while the call goes on (SparkRequests.<Request>.Execute), on the caller's budget.
 */
export type HostHandler = (op: string, args: string, nest: Nest) => Promise<string | undefined>;
export type Nest = (job: Job, host: HostHandler) => Promise<JobResult>;

function stopped(message: string, ms = 0): JobResult {
  return {
    outcome: 'error',
    scriptData: {},
    errors: {},
    logs: [],
    droppedLogs: 0,
    failure: { message, at: null, stack: '' },
    ms,
  };
}

const ENTRY = new URL('./engine-thread.js', import.meta.url);

/**
 * QuickJS's WebAssembly, compiled once per process and handed to every thread (each instantiates it), with the
 * layout of its memory for the threads' snapshots (snapshot.ts).
 */
async function compileEngine(): Promise<{ module: object; layout: MemoryLayout | undefined }> {
  const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } })
    .WebAssembly;
  const bytes = await readFile(path);
  return { module: await wasm.compile(bytes), layout: memoryLayout(bytes) };
}

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
  worker: Worker | undefined;
  flag: Int32Array;
  replies: MessagePort;
  ready: Promise<void>;
  /** The thread runs from a memory snapshot (told when it is ready). */
  snapshot: boolean;
  current: (Queued & { id: number; watchdog: NodeJS.Timeout }) | undefined;
  /** Nested executions running on the thread inside its current script's host call, by id. */
  nested: Map<number, { host: HostHandler; resolve(r: JobResult): void }>;
}

export class EnginePool {
  private readonly threads: Thread[] = [];
  private readonly queues = new Map<string, Queued[]>();
  /** Threads each game holds now: a game holds all of them but one, so another game always finds one. */
  private readonly running = new Map<string, number>();
  private queued = 0;
  private nextId = 1;
  private closed = false;
  private wasm: Promise<{ module: object; layout: MemoryLayout | undefined }> | undefined;

  constructor(
    private readonly size: number,
    private readonly maxQueued: number,
    /** The script memory cap: each thread's WebAssembly memory is made no larger (realm.ts). */
    private readonly memoryBytes = 64 * 1024 * 1024,
  ) {}

  /** Scripts waiting for a thread. */
  get waiting(): number {
    return this.queued;
  }

  /** Runs the job on a sandbox thread; rejects when the queue is full. */
  run(game: string, job: Job, host: HostHandler): Promise<JobResult> {
    if (this.closed) return Promise.reject(new Error('the script engine is closed'));
    if (this.queued >= this.maxQueued) return Promise.reject(new Error('too many scripts waiting'));
    return new Promise((resolve) => {
      const list = this.queues.get(game) ?? [];
      list.push({ game, job, host, resolve });
      this.queues.set(game, list);
      this.queued++;
      this.dispatch();
    });
  }

  /** Threads ready that run their executions from a memory snapshot (all of them, unless the engine changed). */
  get snapshotThreads(): number {
    return this.threads.filter((t) => t.snapshot).length;
  }

  /** Starts every thread now (a serving process at start, tests); resolves when all are ready. */
  async warm(): Promise<void> {
    while (this.threads.length < this.size && !this.closed) this.threads.push(this.start());
    await Promise.all(this.threads.map((t) => t.ready));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.worker?.terminate()));
  }

  private start(): Thread {
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    // Compiled off the event loop, once; the thread starts when it is.
    this.wasm ??= compileEngine();
    let markReady: () => void = () => {};
    const thread: Thread = {
      worker: undefined,
      flag: new Int32Array(signal),
      replies: port1,
      snapshot: false,
      ready: new Promise((r) => {
        markReady = r;
      }),
      current: undefined,
      nested: new Map(),
    };
    void this.wasm.then(
      ({ module: wasm, layout }) => {
        if (this.closed || !this.threads.includes(thread)) return;
        const options = {
          workerData: { signal, replies: port2, wasm, layout, memoryBytes: this.memoryBytes },
          transferList: [port2],
        };
        const worker = fromSource ? fromSource.startSourceWorker(ENTRY, options) : new Worker(ENTRY, options);
        worker.unref();
        thread.worker = worker;
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'ready') {
            thread.snapshot = m.snapshot;
            markReady();
          } else if (m.type === 'host') this.answer(thread, m);
          else if (m.type === 'done' && thread.nested.has(m.id)) {
            thread.nested.get(m.id)?.resolve(m.result);
            thread.nested.delete(m.id);
          } else if (m.type === 'done' && thread.current?.id === m.id) {
            // A thread that ends after this answer leaves the pool first: the next script goes to another.
            if (m.last) this.retire(thread);
            this.finish(thread, m.result);
          }
        });
        worker.on('error', () => this.replace(thread));
        worker.on('exit', () => this.replace(thread));
      },
      () => this.replace(thread),
    );
    return thread;
  }

  /**
   * A game's share: every thread but one (a script waiting for the store holds its thread without using a core,
   * so one game's own concurrency is worth the threads; the one left keeps another game from waiting behind it).
   */
  private get perGame(): number {
    return Math.max(1, this.size - 1);
  }

  /** Next game in turn (below its share of threads): its queue's head; that queue then goes to the back. */
  private take(): Queued | undefined {
    for (const [game, list] of this.queues) {
      if ((this.running.get(game) ?? 0) >= this.perGame) continue;
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

  /** A free thread, or a new one while there are fewer than `size` (threads start as work needs them). */
  private freeThread(): Thread | undefined {
    const free = this.threads.find((t) => !t.current);
    if (free || this.threads.length >= this.size || this.closed) return free;
    const started = this.start();
    this.threads.push(started);
    return started;
  }

  private dispatch(): void {
    while (this.queued > 0) {
      const thread = this.freeThread();
      if (!thread) return;
      const next = this.take();
      if (!next) return;
      const id = this.nextId++;
      const current = { ...next, id, watchdog: undefined as unknown as NodeJS.Timeout };
      thread.current = current;
      this.running.set(next.game, (this.running.get(next.game) ?? 0) + 1);
      // The budget counts from when the script starts on its thread, not from when it was queued.
      void thread.ready.then(() => {
        if (thread.current?.id !== id) return;
        current.watchdog = setTimeout(() => this.hardStop(thread), next.job.timeLimitMs + HARD_STOP_GRACE_MS);
        thread.worker?.postMessage({ type: 'run', id, job: next.job } satisfies ToWorker);
      });
    }
  }

  private answer(thread: Thread, m: Extract<FromWorker, { type: 'host' }>): void {
    const current = thread.current;
    if (!current) return;
    const host = current.id === m.id ? current.host : thread.nested.get(m.id)?.host;
    if (!host) return;
    const live = () => thread.current === current && (current.id === m.id || thread.nested.has(m.id));
    const reply = (r: HostReply) => {
      if (!live()) return;
      thread.replies.postMessage(r);
      Atomics.store(thread.flag, 0, 1);
      Atomics.notify(thread.flag, 0);
    };
    const nest: Nest = (job, nestedHost) =>
      new Promise((resolve) => {
        if (!live()) return resolve(stopped('the calling script has ended'));
        const id = this.nextId++;
        thread.nested.set(id, { host: nestedHost, resolve });
        reply({ seq: m.seq, run: { id, job } });
      });
    host(m.op, m.args, nest).then(
      (value) => reply({ seq: m.seq, ok: true, value }),
      (e: Error) => reply({ seq: m.seq, ok: false, error: e.message }),
    );
  }

  private release(game: string): void {
    const n = (this.running.get(game) ?? 1) - 1;
    if (n <= 0) this.running.delete(game);
    else this.running.set(game, n);
  }

  /** Nested executions of a script that ended (its thread stopped): they end with it. */
  private endNested(thread: Thread, message: string): void {
    for (const n of thread.nested.values()) n.resolve(stopped(message));
    thread.nested.clear();
  }

  private finish(thread: Thread, result: JobResult): void {
    const current = thread.current;
    if (!current) return;
    this.endNested(thread, result.failure?.message ?? 'the calling script has ended');
    clearTimeout(current.watchdog);
    thread.current = undefined;
    this.release(current.game);
    current.resolve(result);
    this.dispatch();
  }

  private hardStop(thread: Thread): void {
    const current = thread.current;
    if (!current) return;
    // Out of the pool before finish() hands the next script to a thread: never to this one, being ended.
    this.retire(thread);
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
    void thread.worker?.terminate();
  }

  /** Takes a thread out of the pool without failing its script (it answered); a new one starts as needed. */
  private retire(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
  }

  private replace(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    const current = thread.current;
    thread.current = undefined;
    this.endNested(thread, 'the script thread stopped');
    if (current) {
      clearTimeout(current.watchdog);
      this.release(current.game);
      current.resolve(stopped('the script thread stopped'));
    }
    void thread.worker?.terminate();
    if (!this.closed) this.dispatch();
  }
}
