// The document tasks: what may run on a compute thread, by name (compute/ runs them; this room owns them). A task
// takes plain data (structured-clone safe) and the pool of its statements, and answers plain data; errors are
// rebuilt on the caller's side (compute/errors.ts).
import type pg from 'pg';
import type { Compute, TaskInput, TaskOutput } from '../compute/compute.js';
import type { CollectionEntry } from './collections.js';
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
} from './document-core.js';
import { distinctBody, findAndModifyBody } from './find-and-modify.js';
import { type ApplyInput, applyToStored } from './update-documents.js';

const needDb = (db: pg.Pool | undefined): pg.Pool => {
  if (!db) throw new Error('this task runs statements: it needs a database');
  return db;
};

export const documentTasks = {
  find: (op: DocumentOp, db: pg.Pool | undefined, compute: DocumentCompute) =>
    findDocuments(op, needDb(db), compute),
  explain: (op: DocumentOp, db: pg.Pool | undefined) => explainFind(op, needDb(db)),
  count: (op: DocumentOp, db: pg.Pool | undefined) => countDocuments(op, needDb(db)),
  insert: (op: DocumentOp, db: pg.Pool | undefined) => insertBody(op, needDb(db)),
  save: (op: DocumentOp, db: pg.Pool | undefined) => saveBody(op, needDb(db)),
  update: (
    op: DocumentOp & { collection: CollectionEntry },
    db: pg.Pool | undefined,
    compute: DocumentCompute,
  ) => updateBody(op, needDb(db), compute),
  remove: (op: DocumentOp, db: pg.Pool | undefined) => removeBody(op, needDb(db)),
  aggregate: (op: DocumentOp, db: pg.Pool | undefined) => aggregateBody(op, needDb(db)),
  findAndModify: (op: DocumentOp & { collection: CollectionEntry }, db: pg.Pool | undefined) =>
    findAndModifyBody(op, needDb(db)),
  distinct: (op: DocumentOp, db: pg.Pool | undefined) => distinctBody(op, needDb(db)),
  render: async (input: { texts: string[]; fields: unknown; query?: unknown }) => renderDocuments(input),
  apply: async (input: ApplyInput) => applyToStored(input),
};

export type DocumentTasks = typeof documentTasks;
export type DocumentTask = keyof DocumentTasks;
/** Where the document tasks run: here, or on the document compute threads. */
export type DocumentCompute = Compute<DocumentTasks>;
export type DocumentInput<N extends DocumentTask> = TaskInput<DocumentTasks, N>;
export type DocumentOutput<N extends DocumentTask> = TaskOutput<DocumentTasks, N>;

/** The document compute threads' entry (compute-worker.ts), for ComputePool. */
export const DOCUMENT_WORKER = new URL('./compute-worker.js', import.meta.url);
