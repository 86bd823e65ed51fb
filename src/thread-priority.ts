// Threads that do bulk work (PGlite, compute) run below the event loop's priority. Linux keeps a nice value
// per thread, so a thread can lower its own: when the cores are busy, the scheduler then runs the event loop
// (health checks, small requests) first instead of giving it a third of a core. Elsewhere the call would
// change the whole process, so it is made on Linux only.
import { setPriority } from 'node:os';

/** The nice value of bulk-work threads (0 is the event loop's; 19 the lowest). */
export const BULK_THREAD_NICENESS = 10;

/**
 * The sandbox threads' nice value (src/script/): the lowest, below the bulk-work threads' 10, so that the event
 * loop answers first while scripts spin (docs/cloud-code.md, "The sandbox").
 */
export const SANDBOX_THREAD_NICENESS = 19;

export function lowerThreadPriority(niceness = BULK_THREAD_NICENESS): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(niceness);
  } catch {
    // A container may forbid it; the thread then runs at the event loop's priority.
  }
}
