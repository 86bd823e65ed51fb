// The messages between the event loop and a compute thread. A task's statements come back to the event loop,
// which owns the database connections: a compute thread only computes.
import type { SentError } from './errors.js';

/** A statement's answer as text, parsed by the thread that asked (so no document is parsed on the event loop). */
export interface TextResult {
  fields: Array<{ name: string; dataTypeID: number }>;
  rows: Array<Array<string | null>>;
  rowCount: number | null;
}

export type DbRequest =
  | { op: 'query'; client?: number; text: string; values: unknown[] }
  | { op: 'connect' }
  | { op: 'release'; client: number; failed: boolean };

export type ToWorker =
  | { type: 'task'; id: number; name: string; input: unknown; db: boolean }
  | { type: 'db'; id: number; ok: true; result: TextResult | { client: number } | null }
  | { type: 'db'; id: number; ok: false; error: SentError };

export type FromWorker =
  | { type: 'done'; id: number; ok: true; output: unknown }
  | { type: 'done'; id: number; ok: false; error: SentError }
  | { type: 'db'; id: number; task: number; request: DbRequest };
