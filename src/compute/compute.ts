// Where a task runs: on a compute thread when its input is large (or always, for `size` Infinity), otherwise
// right here, since a thread's round trip costs more than a small task. The same task function runs in both
// places, so what a request gets never depends on where it ran. The tasks belong to the rooms that use them
// (nosql/compute-tasks.ts): this room only runs them.
import type pg from 'pg';
import type { ComputePool } from './pool.js';

/**
 * Text past this size (a request body, the documents of a batch) is handled on a compute thread. Parsing or
 * building 64 KB of JSON takes well under a millisecond; the largest inputs (4 MB bodies, 16 MB documents) take
 * hundreds of milliseconds, which would hold every other request of the process.
 */
export const OFFLOAD_BYTES = 64 * 1024;

/**
 * A task takes plain data (structured-clone safe) and the pool of its statements, and answers plain data; it may
 * run further tasks through `compute` (a find renders a large batch on a thread).
 */
// biome-ignore lint/suspicious/noExplicitAny: a table holds tasks of every input type; each keeps its own.
export type Task = (input: any, db: pg.Pool | undefined, compute: Compute<any>) => Promise<unknown>;
export type TaskTable = Record<string, Task>;
export type TaskInput<T extends TaskTable, N extends keyof T> = Parameters<T[N]>[0];
export type TaskOutput<T extends TaskTable, N extends keyof T> = Awaited<ReturnType<T[N]>>;

export interface Compute<T extends TaskTable> {
  run<N extends keyof T & string>(
    name: N,
    input: TaskInput<T, N>,
    size: number,
    db?: pg.Pool,
  ): Promise<TaskOutput<T, N>>;
}

/** Runs the named task of the table here; a name the table does not hold is refused, not looked up the chain. */
export function runTask<T extends TaskTable, N extends keyof T & string>(
  tasks: T,
  name: N,
  input: TaskInput<T, N>,
  db: pg.Pool | undefined,
  compute: Compute<T>,
): Promise<TaskOutput<T, N>> {
  if (!Object.hasOwn(tasks, name)) return Promise.reject(new Error(`no compute task ${String(name)}`));
  return tasks[name]!(input, db, compute) as Promise<TaskOutput<T, N>>;
}

/** Runs every task on the calling thread (a compute thread's own view, and servers without threads). */
export function inline<T extends TaskTable>(tasks: T): Compute<T> {
  const here: Compute<T> = { run: (name, input, _size, db) => runTask(tasks, name, input, db, here) };
  return here;
}

/**
 * Large inputs to the pool's threads, small ones here. A task run here gets this same view, so the work it hands
 * on (a find's batch of large documents) still goes to a thread when it is large.
 */
export function pooled<T extends TaskTable>(
  tasks: T,
  pool: ComputePool,
  threshold = OFFLOAD_BYTES,
): Compute<T> {
  const routed: Compute<T> = {
    run: (name, input, size, db) =>
      size > threshold
        ? (pool.run(name, input, db) as Promise<TaskOutput<T, typeof name>>)
        : runTask(tasks, name, input, db, routed),
  };
  return routed;
}
