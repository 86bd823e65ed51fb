// A sandbox thread: runs one script at a time in QuickJS compiled to WebAssembly. Each execution gets a fresh
// context (nothing survives from one script or game to the next), a memory limit, a stack limit,
// and an interrupt handler that ends it at its deadline. The script's host calls (collections, players) go to
// the event loop; this thread waits for the answer with Atomics.wait, so the script sees a synchronous API
// while the event loop never blocks.
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import * as variantModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { lowerThreadPriority } from '../thread-priority.js';
import { describe, ModuleError, type Prepared, prepareContext, Stop } from './engine-context.js';
import { ThreadSnapshot } from './engine-snapshot.js';
import type { FromWorker, HostReply, Job, JobResult, LogLine, ToWorker } from './protocol.js';
import { SANDBOX_THREAD_NICENESS, STACK_BYTES, sandboxMemory } from './realm.js';
import type { MemoryLayout } from './snapshot.js';

/** Largest JSON text of one host call's arguments (a document to write, a query). */
const HOST_ARGS_CHARS = 4 * 1024 * 1024;

const { signal, replies, wasm, layout, memoryBytes } = workerData as {
  signal: SharedArrayBuffer;
  replies: MessagePort;
  wasm: object;
  /** Where the engine's memory holds state (snapshot.ts); unset, each execution makes a fresh context. */
  layout: MemoryLayout | undefined;
  /** The script memory cap: the thread's WebAssembly memory grows no further (realm.ts, sandboxMemory). */
  memoryBytes: number;
};
const flag = new Int32Array(signal);
const port = parentPort;
if (!port) throw new Error('engine-worker runs on a thread');
const send = (m: FromWorker) => port.postMessage(m);

interface Execution {
  id: number;
  job: Job;
  ctx: QuickJSContext;
  scriptData: Record<string, unknown>;
  scriptDataBytes: Map<string, number>;
  errors: Record<string, unknown>;
  logs: LogLine[];
  dropped: number;
  loaded: Set<string>;
  loading: Set<string>;
  exited: boolean;
  timedOut: boolean;
  /** The runtime's interrupt handler while this execution runs (a nested one puts it back when it ends). */
  interrupt: () => boolean;
}

/** Host calls of this thread, numbered across nested executions (a reply is matched by its number). */
let lastSeq = 0;

const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));

/** A host call: posted to the event loop, answered on the reply port; the wait ends at the deadline. */
function hostCall(ex: Execution, op: string, args: string): string | undefined {
  // The event loop parses the arguments: their size is bounded like a request body's.
  if (args.length > HOST_ARGS_CHARS)
    throw new Error(`a call's arguments hold at most ${HOST_ARGS_CHARS} characters of JSON`);
  const seq = ++lastSeq;
  Atomics.store(flag, 0, 0);
  send({ type: 'host', id: ex.id, seq, op, args });
  for (;;) {
    const left = ex.job.deadline - Date.now();
    if (left <= 0 || Atomics.wait(flag, 0, 0, left) === 'timed-out') {
      ex.timedOut = true;
      throw new Stop('time budget spent waiting for the store');
    }
    Atomics.store(flag, 0, 0);
    let reply: HostReply | undefined;
    for (;;) {
      const m = receiveMessageOnPort(replies);
      if (!m) break;
      const r = m.message as HostReply;
      if (r.seq === seq) reply = r;
    }
    if (!reply) continue;
    if ('run' in reply) {
      // A request this call executes with its scripts: they run here, nested, on this execution's budget.
      send({ type: 'done', id: reply.run.id, result: runSafely(reply.run.id, reply.run.job, ex) });
      continue;
    }
    if (reply.ok) return reply.value;
    throw new Error(reply.error);
  }
}

function setIn(
  ex: Execution,
  kind: 'scriptData' | 'scriptError',
  a: { op: string; name?: string; value?: unknown },
) {
  const map = kind === 'scriptData' ? ex.scriptData : ex.errors;
  const name = a.name ?? '';
  switch (a.op) {
    case 'set': {
      if (kind === 'scriptData') {
        const bytes = JSON.stringify(a.value ?? null).length + name.length;
        const others = [...ex.scriptDataBytes.entries()].reduce((n, [k, b]) => (k === name ? n : n + b), 0);
        if (others + bytes > ex.job.scriptDataBytes)
          throw new Error(`scriptData over ${ex.job.scriptDataBytes} bytes of JSON`);
        ex.scriptDataBytes.set(name, bytes);
      }
      map[name] = a.value ?? null;
      return undefined;
    }
    case 'get':
      return json(Object.hasOwn(map, name) ? map[name] : null);
    case 'remove':
      delete map[name];
      ex.scriptDataBytes.delete(name);
      return undefined;
    case 'clear':
      for (const k of Object.keys(map)) delete map[k];
      if (kind === 'scriptData') ex.scriptDataBytes.clear();
      return undefined;
    default:
      return json(Object.keys(map).length > 0);
  }
}

/** Runs a module's source in the calling script's global scope (GameSparks inlined them; not CommonJS). */
function requireModule(ex: Execution, a: { name: string; once: boolean }) {
  if (a.once && ex.loaded.has(a.name)) return;
  // A module being loaded is not loaded again by a require inside it: circular requires end.
  if (ex.loading.has(a.name)) return;
  const source = hostCall(ex, 'module', JSON.stringify({ name: a.name }));
  if (source === undefined) throw new Error(`no module ${a.name}`);
  ex.loading.add(a.name);
  try {
    const result = ex.ctx.evalCode(JSON.parse(source) as string, `modules/${a.name}.js`);
    if (result.error) {
      // The module's own error goes on up the script's stack as it was thrown.
      throw new ModuleError(result.error);
    }
    result.value.dispose();
    ex.loaded.add(a.name);
  } finally {
    ex.loading.delete(a.name);
  }
}

function local(ex: Execution, op: string, args: string): string | undefined {
  const a = JSON.parse(args);
  switch (op) {
    case 'data':
      return json(ex.job.data ?? {});
    case 'context':
      return json(ex.job.context);
    case 'scriptData':
    case 'scriptError':
      return setIn(ex, op, a);
    case 'exit':
      ex.exited = true;
      throw new Stop('exit');
    case 'seed':
      // Math.random's state, new for each execution (the prelude's generator; QuickJS's own would start from the
      // same state after every restore of the snapshot).
      return json(Array.from(crypto.getRandomValues(new Int32Array(4))));
    case 'remaining':
      return json(Math.max(0, ex.job.deadline - Date.now()));
    case 'log':
      if (ex.logs.length >= ex.job.logLines) ex.dropped++;
      else ex.logs.push({ ts: Date.now(), level: a.level, log: a.log });
      return undefined;
    case 'require':
      requireModule(ex, a);
      return undefined;
    default:
      throw new Error(`unknown call ${op}`);
  }
}

function where(stack: string): string | null {
  const m = /\(?((?:event|request|response|system|callbacks|modules|snippets)\/[^:()\s]+\.js):(\d+)/.exec(
    stack,
  );
  return m ? `${m[1]}:${m[2]}` : null;
}

/** Executions one QuickJS runtime serves before it is replaced; each execution has its own context. */
const RUNTIME_REUSE = 500;
const runs: { runtime: QuickJSRuntime | undefined; count: number } = { runtime: undefined, count: 0 };

/** The interrupt handler of the execution running now (a nested one puts its caller's back when it ends). */
let interruptNow: () => boolean = () => false;

function runtimeFor(module: QuickJSWASMModule): QuickJSRuntime {
  if (!runs.runtime) {
    runs.runtime = module.newRuntime();
    // Set once: a snapshot holds the runtime with its handler on, and an execution only swaps interruptNow.
    runs.runtime.setInterruptHandler(() => interruptNow());
  }
  return runs.runtime;
}

/** Set when QuickJS aborted: its WebAssembly cannot run again, so the thread ends after its answer. */
let poisoned = false;

function retireRuntime(): void {
  const runtime = runs.runtime;
  runs.runtime = undefined;
  runs.count = 0;
  try {
    runtime?.dispose();
  } catch {
    poisoned = true;
  }
}

/** Set when a nested execution failed: the runtime is replaced once the outermost one ends. */
let retireAfter = false;

/** The context made while the thread waited for work (prepareContext), for the next execution on its runtime. */
let next: Prepared | undefined;
/** The memory cap of the last execution: a context made ahead is made under it. */
let lastMemoryBytes = 0;

function takePrepared(runtime: QuickJSRuntime): Prepared | undefined {
  const p = next;
  next = undefined;
  if (p && p.runtime !== runtime) {
    p.ctx.dispose();
    return undefined;
  }
  return p;
}

/**
 * Between executions: the memory put back to the snapshot (or, without snapshots, the next context, its bridges
 * and the prelude made), now rather than when a script comes.
 */
function prepareAhead(module: QuickJSWASMModule): void {
  interruptNow = () => false;
  if (poisoned) return;
  // A snapshot that fails to be taken turns itself off; QuickJS aborting while it is taken ends the thread.
  if (snapshot.wanted) snapshot.take(runtimeFor(module), memoryBytes);
  snapshot.restore();
  if (snapshot.active || next) return;
  try {
    const runtime = runtimeFor(module);
    if (lastMemoryBytes > 0) runtime.setMemoryLimit(lastMemoryBytes);
    runtime.setMaxStackSize(STACK_BYTES);
    next = prepareContext(runtime);
  } catch (e) {
    // WebAssembly that aborted cannot run again: the pool replaces this thread (it holds no script now).
    if ((e as Error).message.startsWith('Aborted')) process.exit(1);
  }
}

function run(module: QuickJSWASMModule, id: number, queued: Job, parent?: Execution): JobResult {
  const started = performance.now();
  // The budget counts from the script's start on this thread, not from when it was queued; a nested execution
  // spends its caller's.
  const job = { ...queued, deadline: parent ? parent.job.deadline : Date.now() + queued.timeLimitMs };
  // A top-level execution runs in the snapshot's context, from the snapshot's state; a nested one (Execute, inside
  // its caller's execution) in a fresh context of its own, as every execution did without snapshots.
  const fromSnapshot = parent === undefined ? snapshot.forExecution() : undefined;
  const runtime = runtimeFor(module);
  runtime.setMemoryLimit(job.memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  lastMemoryBytes = job.memoryBytes;
  const ex: Execution = {
    id,
    job,
    ctx: undefined as unknown as QuickJSContext,
    // Null-prototype maps: a script naming a key "__proto__" gets an own key, never a prototype swap.
    scriptData: Object.assign(Object.create(null), job.scriptData),
    scriptDataBytes: new Map(Object.entries(job.scriptData).map(([k, v]) => [k, JSON.stringify(v).length])),
    errors: Object.assign(Object.create(null), job.errors),
    logs: [],
    dropped: 0,
    loaded: new Set(),
    loading: new Set(),
    exited: false,
    timedOut: false,
    // Interrupts are checked every few thousand instructions: the deadline, and a stop asked by a call.
    interrupt: () => {
      if (ex.exited || ex.timedOut) return true;
      if (Date.now() > job.deadline) {
        ex.timedOut = true;
        return true;
      }
      return false;
    },
  };
  interruptNow = ex.interrupt;
  let failure: JobResult['failure'];
  let prepared = fromSnapshot ?? takePrepared(runtime);
  try {
    if (!prepared) {
      try {
        prepared = prepareContext(runtime);
      } catch (e) {
        // Out of time before the script began (a busy machine): a timeout like any other.
        if (!ex.timedOut) throw e;
      }
    }
    if (prepared) {
      const ctx = prepared.ctx;
      ex.ctx = ctx;
      prepared.bind({ host: (op, args) => hostCall(ex, op, args), local: (op, args) => local(ex, op, args) });
      const result = ctx.evalCode(job.source, `${job.name}.js`);
      if (result.error) {
        const d = describe(ctx, result.error);
        result.error.dispose();
        if (!ex.exited && !ex.timedOut) {
          const message =
            d.message === 'out of memory' ? 'out of memory (the script memory limit)' : d.message;
          failure = { message: `${d.name}: ${message}`, at: where(d.stack), stack: d.stack };
        }
      } else result.value.dispose();
    }
  } finally {
    // The snapshot's context is never disposed: the memory is put back instead.
    if (!fromSnapshot) prepared?.ctx.dispose();
    interruptNow = parent ? parent.interrupt : () => false;
  }
  const outcome = ex.exited ? 'ok' : ex.timedOut ? 'timeout' : failure ? 'error' : 'ok';
  // A fresh runtime after a failure (its heap may be at the limit) and now and then (what contexts leave behind);
  // never under a caller's live context.
  // With a snapshot, the memory put back leaves nothing of the execution behind, failed or not.
  const retire = !snapshot.active && (outcome !== 'ok' || ++runs.count >= RUNTIME_REUSE);
  if (parent) retireAfter ||= retire;
  else if (retire || retireAfter) {
    retireAfter = false;
    retireRuntime();
  }
  return {
    outcome,
    scriptData: ex.scriptData,
    errors: ex.errors,
    logs: ex.logs,
    droppedLogs: ex.dropped,
    ...(outcome === 'error' ? { failure } : {}),
    ...(outcome === 'timeout'
      ? { failure: { message: 'the script ran past its time budget', at: null, stack: '' } }
      : {}),
    ms: performance.now() - started,
  };
}

lowerThreadPriority(SANDBOX_THREAD_NICENESS);
const wasmMemory = sandboxMemory(memoryBytes) as { buffer: ArrayBuffer };
/** The thread's memory snapshot (engine-snapshot.ts), taken before the thread says it is ready. */
const snapshot = new ThreadSnapshot(wasmMemory, layout);
const module = await newQuickJSWASMModuleFromVariant(
  newVariant(variantModule.default as unknown as QuickJSSyncVariant, {
    wasmModule: wasm as never,
    wasmMemory: wasmMemory as never,
  }),
);
function runSafely(id: number, job: Job, parent?: Execution): JobResult {
  try {
    const result = run(module, id, job, parent);
    if (result.failure?.message.startsWith('Aborted')) poisoned = true;
    return result;
  } catch (e) {
    const message = (e as Error).message;
    // A JavaScript error that crossed the engine's frames may leave its stack pointer off its top: with a snapshot
    // the thread is replaced rather than trusted again.
    if (snapshot.active) poisoned = true;
    return {
      outcome: 'error',
      scriptData: {},
      errors: {},
      logs: [],
      droppedLogs: 0,
      failure: { message, at: null, stack: (e as Error).stack ?? '' },
      ms: 0,
    };
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type !== 'run') return;
  const result = runSafely(m.id, m.job);
  // WebAssembly that aborted cannot run again: this thread ends and the pool starts another (told with the
  // answer, so that it never hands this thread the next script).
  const last = poisoned;
  send({ type: 'done', id: m.id, result, ...(last ? { last } : {}) });
  if (last) process.exit(1);
  // The memory is put back (or the next context made) now, after the answer: a script sent later starts at once.
  prepareAhead(module);
});
// The snapshot is taken before the thread says it is ready, on its fresh memory.
prepareAhead(module);
send({ type: 'ready', snapshot: snapshot.active });
