// How a sandbox context is made (engine-worker.ts), shared with the sandbox micro-bench (bench/cloud-code.ts).
import { DefaultIntrinsics } from 'quickjs-emscripten-core';

/** The thread's stack for script frames: deep recursion ends as a script error, never as a crash of the thread. */
export const STACK_BYTES = 200 * 1024;

/**
 * The language a context is made with: the defaults without binary buffers (ArrayBuffer, typed arrays, DataView,
 * Atomics: ES5 had none, and their memory is not counted against the cap). Leaving them out at creation also
 * halves the cost of a new context.
 */
export const INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false };

/** The Spark API's own code is compiled without debug information (its frames are not the script's). */
export const API_EVAL = { strip: true } as const;

/**
 * The sandbox threads' nice value (Linux): the lowest, below the bulk-work threads' 10, so that the event loop
 * answers first while scripts spin (docs/cloud-code.md, "The sandbox").
 */
export { SANDBOX_THREAD_NICENESS } from '../thread-priority.js';

/**
 * A sandbox thread's WebAssembly memory: QuickJS's allocator limit (setMemoryLimit) counts allocations, not their
 * bytes, in this build (Emscripten has no malloc_usable_size, so each allocation counts 8 bytes): a script of big
 * strings grew the thread's memory to the 2 GB WebAssembly maximum. The memory is made with its maximum set
 * instead: the module's own 16 MB (static data, stack) plus the script memory cap. Past it malloc fails and
 * QuickJS throws "out of memory" in the script.
 */
export const WASM_BASE_BYTES = 16 * 1024 * 1024;

export function sandboxMemory(memoryBytes: number): object {
  const page = 64 * 1024;
  const initial = WASM_BASE_BYTES / page;
  const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: object) => object } }).WebAssembly;
  return new wasm.Memory({ initial, maximum: initial + Math.ceil(memoryBytes / page) });
}
