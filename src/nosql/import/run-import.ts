// One import, all or nothing: lines → records → batches written in one transaction; the first bad line names itself.
import type pg from 'pg';
import { isPlaybaseError, type PlaybaseError } from '../../errors.js';
import { withSavepoint } from '../../store/db.js';
import { importTransaction } from '../../store/import-transaction.js';
import { translateDbError } from '../db-errors.js';
import type { GameScope, Scope } from '../scope.js';
import { importErrors } from './errors.js';
import type { Line } from './lines.js';

/** What one kind of import (mongo, data) does with its records; the runner owns batches and the transaction. */
export interface Importer<R extends { line: number }> {
  parse(line: Line): R;
  /** The record's identity: two records of one key cannot both be imported. */
  key(record: R): string;
  /** The collection (or data type) it goes to: the answer counts records by it. */
  group(record: R): string;
  /** Bytes it holds in memory, about: a batch is written once it holds BATCH_BYTES. */
  bytes(record: R): number;
  /** Writes a batch; throws IMPORT_CONFLICT naming the first record that meets an existing one. */
  write(client: pg.PoolClient, records: R[]): Promise<void>;
  /** Work after the last batch, in the same transaction (leaderboard rank buckets). */
  finish(client: pg.PoolClient): Promise<void>;
  /** The scope a database error of the record is reported in (the index names of a collection). */
  scopeOf(record: R): Scope | undefined;
}

export interface ImportResult {
  imported: number;
  /** Records by collection (or data type), names sorted. */
  collections: Record<string, number>;
}

export interface RunOptions {
  /** The statement limit of the session (PLAYBASE_STATEMENT_TIMEOUT_MS). */
  timeoutMs: number;
  /** The limit of the work after the last batch, which reads whole leaderboards. */
  finishTimeoutMs: number;
}

const BATCH_RECORDS = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Distinct collections (or data types) one import may name; the answer lists each one. */
const MAX_GROUPS = 10_000;

/** SQLSTATE classes a record's content can cause (data exceptions, constraint violations, program limits). */
const isRecordSqlError = (e: unknown) =>
  !isPlaybaseError(e) && /^(2[23]|54)[0-9A-Z]{3}$/.test(String((e as { code?: unknown } | null)?.code));

/** Writes the records one at a time, each under its own savepoint, and throws the first one's failure by line. */
async function locateFailure<R extends { line: number }>(
  client: pg.PoolClient,
  importer: Importer<R>,
  records: R[],
  timeoutMs: number,
  original: unknown,
): Promise<never> {
  for (const record of records) {
    try {
      await withSavepoint(client, 'import_record', () => importer.write(client, [record]));
    } catch (e) {
      if (!isRecordSqlError(e)) throw e;
      const known = await translateDbError(e, client, importer.scopeOf(record), timeoutMs);
      if (!isPlaybaseError(known) || known.status >= 500) throw e;
      const why = (known as PlaybaseError).message;
      throw known.status === 409
        ? importErrors.conflict(record.line, why)
        : importErrors.badRecord(record.line, why);
    }
  }
  throw original;
}

async function writeBatch<R extends { line: number }>(
  client: pg.PoolClient,
  importer: Importer<R>,
  records: R[],
  timeoutMs: number,
): Promise<void> {
  if (records.length === 0) return;
  try {
    await withSavepoint(client, 'import_batch', () => importer.write(client, records));
  } catch (e) {
    if (!isRecordSqlError(e)) throw e;
    await locateFailure(client, importer, records, timeoutMs, e);
  }
}

/** Reads every line, writing full batches as it goes; a key met twice in one batch waits for the next batch. */
async function writeAll<R extends { line: number }>(
  client: pg.PoolClient,
  importer: Importer<R>,
  lines: AsyncIterable<Line>,
  timeoutMs: number,
): Promise<ImportResult> {
  const counts = new Map<string, number>();
  let batch: R[] = [];
  let keys = new Set<string>();
  let bytes = 0;
  const flush = async () => {
    await writeBatch(client, importer, batch, timeoutMs);
    batch = [];
    keys = new Set();
    bytes = 0;
  };
  let imported = 0;
  for await (const line of lines) {
    const record = importer.parse(line);
    const group = importer.group(record);
    if (!counts.has(group) && counts.size >= MAX_GROUPS)
      throw importErrors.badRecord(line.number, `more than ${MAX_GROUPS} distinct collections in one import`);
    // The database then reports the second one against the first, in line order.
    if (keys.has(importer.key(record))) await flush();
    batch.push(record);
    keys.add(importer.key(record));
    bytes += importer.bytes(record);
    counts.set(group, (counts.get(group) ?? 0) + 1);
    imported += 1;
    if (batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  const names = [...counts.keys()].sort();
  return { imported, collections: Object.fromEntries(names.map((n) => [n, counts.get(n) ?? 0])) };
}

/**
 * Imports every line into the game's stage in one transaction. One import per game and stage runs at a time
 * (a transaction-scoped advisory lock), so two never wait on each other's rows.
 */
export async function runImport<R extends { line: number }>(
  pool: pg.Pool,
  scope: GameScope,
  importer: Importer<R>,
  lines: AsyncIterable<Line>,
  options: RunOptions,
): Promise<ImportResult> {
  const outcome = await importTransaction(pool, scope, options.finishTimeoutMs, {
    write: (client) => writeAll(client, importer, lines, options.timeoutMs),
    finish: (client) => importer.finish(client),
  });
  if (outcome.locked) throw importErrors.inProgress(scope.game, scope.stage);
  return outcome.result;
}
