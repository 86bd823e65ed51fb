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
export const SANDBOX_THREAD_NICENESS = 19;
