// What may run on a compute thread: every task, by name. A task takes plain data (structured-clone safe) and
// the pool of its statements, and answers plain data; errors are rebuilt on the caller's side (errors.ts).
import type pg from 'pg';
import type { CollectionEntry } from '../nosql/collections.js';
import {
  aggregateBody,
  countDocuments,
  type DocumentOp,
  explainFind,
  findDocuments,
  insertBody,
  removeBody,
  renderDocuments,
  saveBody,
  updateBody,
} from '../nosql/document-core.js';
import { applyToStored } from '../nosql/update-documents.js';
import type { Compute } from './compute.js';

const needDb = (db: pg.Pool | undefined): pg.Pool => {
  if (!db) throw new Error('this task runs statements: it needs a database');
  return db;
};

const tasks = {
  find: (op: DocumentOp, db: pg.Pool | undefined, compute: Compute) => findDocuments(op, needDb(db), compute),
  explain: (op: DocumentOp, db: pg.Pool | undefined) => explainFind(op, needDb(db)),
  count: (op: DocumentOp, db: pg.Pool | undefined) => countDocuments(op, needDb(db)),
  insert: (op: DocumentOp, db: pg.Pool | undefined) => insertBody(op, needDb(db)),
  save: (op: DocumentOp, db: pg.Pool | undefined) => saveBody(op, needDb(db)),
  update: (op: DocumentOp & { collection: CollectionEntry }, db: pg.Pool | undefined, compute: Compute) =>
    updateBody(op, needDb(db), compute),
  remove: (op: DocumentOp, db: pg.Pool | undefined) => removeBody(op, needDb(db)),
  aggregate: (op: DocumentOp, db: pg.Pool | undefined) => aggregateBody(op, needDb(db)),
  render: async (input: { texts: string[]; fields: unknown }) => renderDocuments(input),
  apply: async (input: { texts: string[]; update: unknown; now: number }) => applyToStored(input),
};

type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
export type TaskInput<N extends TaskName> = Parameters<Tasks[N]>[0];
export type TaskOutput<N extends TaskName> = Awaited<ReturnType<Tasks[N]>>;

export function runTask<N extends TaskName>(
  name: N,
  input: TaskInput<N>,
  db: pg.Pool | undefined,
  compute: Compute,
): Promise<TaskOutput<N>> {
  if (!Object.hasOwn(tasks, name)) return Promise.reject(new Error(`no compute task ${String(name)}`));
  const task = tasks[name] as (i: TaskInput<N>, d: pg.Pool | undefined, c: Compute) => Promise<TaskOutput<N>>;
  return task(input, db, compute);
}
