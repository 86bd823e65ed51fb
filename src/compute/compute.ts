// Where a task runs: on a compute thread when its input is large (or always, for `size` Infinity), otherwise
// right here, since a thread's round trip costs more than a small task. The same task function runs in both
// places, so what a request gets never depends on where it ran.
import type pg from 'pg';
import type { ComputePool } from './pool.js';
import { runTask, type TaskInput, type TaskName, type TaskOutput } from './tasks.js';

/**
 * Text past this size (a request body, the documents of a batch) is handled on a compute thread. Parsing or
 * building 64 KB of JSON takes well under a millisecond; the largest inputs (4 MB bodies, 16 MB documents) take
 * hundreds of milliseconds, which would hold every other request of the process.
 */
export const OFFLOAD_BYTES = 64 * 1024;

export interface Compute {
  run<N extends TaskName>(name: N, input: TaskInput<N>, size: number, db?: pg.Pool): Promise<TaskOutput<N>>;
}

/** Runs every task on the calling thread (a compute thread's own view, and servers without threads). */
export const inline: Compute = {
  run: (name, input, _size, db) => runTask(name, input, db, inline),
};

export function pooled(pool: ComputePool, threshold = OFFLOAD_BYTES): Compute {
  return {
    run: (name, input, size, db) =>
      size > threshold
        ? (pool.run(name, input, db) as Promise<TaskOutput<typeof name>>)
        : runTask(name, input, db, inline),
  };
}
