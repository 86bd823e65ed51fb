// Indexes made through the API: PostgreSQL expression indexes on nosql_documents, partial on one collection,
// over the very expressions the query compiler emits (src/query/indexes.ts), recorded in nosql_indexes.
//
// On PostgreSQL they are built and dropped CONCURRENTLY, so one game's index build never blocks the writes
// of every other game sharing the table; that cannot run inside a transaction, so the catalogue row is
// written after the build (an index missing from the catalogue is harmless; the reverse never happens).
import { createHash } from 'node:crypto';
import pg from 'pg';
import { pathSql } from '../query/field-path.js';
import { type IndexField, indexColumnsSql } from '../query/indexes.js';
import { fillKeyIndex, forgetKeyIndexes, registerKeyIndex } from './key-entries.js';
import { query } from './query.js';
import { assertSafeScope, type Db, type GameScope, type Scope } from './scope.js';

export interface DdlOptions {
  /** PostgreSQL: CREATE/DROP INDEX CONCURRENTLY (PGlite has one connection and no CONCURRENTLY). */
  concurrently: boolean;
  /** Index builds may outlast the 10 s query limit; this is theirs. */
  buildTimeoutMs: number;
}

/** An index as the catalogue records it. */
export interface IndexRow {
  name: string;
  keys: Array<[string, 1 | -1]>;
  unique: boolean;
  pg_name: string;
}

/** The primary key's constraint: the `_id_` index of every collection. */
export const PRIMARY_KEY = 'nosql_documents_pkey';

function createSql(scope: Scope, pgName: string, index: BuildSpec, concurrently: boolean): string {
  // DDL takes no bind parameters: the scope is checked against strict patterns, then quoted as literals.
  assertSafeScope(scope);
  const lit = (s: string) => pg.escapeLiteral(s);
  // A non-unique index ends with id in the direction of its last key: ties of a sort on its keys are read in id
  // order (document-reads.ts orders them so), so the index gives the whole ORDER BY and a limit stops early.
  const last = index.keys[index.keys.length - 1]!;
  const tie = index.unique ? '' : `, id${last.dir === -1 ? ' DESC' : ''}`;
  const columns = `${indexColumnsSql(index.keys, 'doc', index.unique)}${tie}`;
  return (
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${concurrently ? 'CONCURRENTLY ' : ''}${pgName} ON nosql_documents ` +
    `(${columns}) WHERE game_id = ${lit(scope.game)} AND stage = ${lit(scope.stage)} AND collection = ${lit(scope.collection)}`
  );
}

/** Runs DDL under the build limit (set on the session: PostgreSQL applies it, the embedded store's host too). */
async function runDdl(pool: pg.Pool, sql: string, options: DdlOptions): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query(`SET statement_timeout = ${Math.trunc(options.buildTimeoutMs)}`);
    await client.query(sql);
  } finally {
    await client.query('RESET statement_timeout').catch((e: Error) => {
      failure = e;
    });
    // A client whose settings could not be reset is discarded rather than handed to the next request.
    client.release(failure);
  }
}

export interface BuildSpec {
  keys: IndexField[];
  unique: boolean;
}

/** Builds the PostgreSQL index `pgName` (a name of the nx_ form); SQLSTATE 23505 when documents repeat a key. */
export async function buildPgIndex(
  pool: pg.Pool,
  scope: Scope,
  pgName: string,
  index: BuildSpec,
  options: DdlOptions,
): Promise<void> {
  checkPgName(pgName);
  // The count entries (key-entries.ts): registered before the build, filled after it.
  const keyIndex = await registerKeyIndex(pool, scope, pgName, index.keys[0]!.parts);
  try {
    await runDdl(pool, createSql(scope, pgName, index, options.concurrently), options);
    await fillKeyIndex(pool, keyIndex, options);
  } catch (e) {
    await forgetKeyIndexes(pool, [pgName]).catch(() => {});
    throw e;
  }
  // A planner hint only: an index whose statistics could not be added is still a good index.
  if (!index.unique) await addKeyStatistics(pool, index.keys, options).catch(() => {});
}

/** Most key statistics objects in the schema (one per indexed path, whatever the collection); past it none are added. */
const MAX_KEY_STATISTICS = 100;

/** `CREATE STATISTICS` on the key expression of a path (the one filters compare), named after the path. */
export function keyStatisticsSql(parts: string[]): string {
  const name = `nx_st_${createHash('md5').update(JSON.stringify(parts)).digest('hex')}`;
  return `CREATE STATISTICS IF NOT EXISTS ${name} ON (pb_pk(doc, ${pathSql(parts)})) FROM nosql_documents`;
}

/**
 * PostgreSQL takes no statistics from a partial index (it uses an index's expression statistics only when the
 * index covers the whole table), and every API index is partial: without more, the planner guesses 0.5% for
 * any equality or range on a key, so a compound filter with a limit looks like a handful of rows and is read
 * through a bitmap of every entry of the first key (Q4 of the bench: all 5,000 GB entries before one row)
 * instead of an index scan that stops at the limit. Expression statistics (PostgreSQL 14+) on the key over
 * the whole table give the distribution; ANALYZE (run after each build) fills them. They are shared by every
 * collection indexing the path and kept when an index is dropped; each costs ANALYZE one key per sampled row.
 */
async function addKeyStatistics(pool: pg.Pool, keys: IndexField[], options: DdlOptions): Promise<void> {
  const { rows } = await query<{ n: string }>(
    pool,
    `SELECT count(*) AS n FROM pg_statistic_ext
      WHERE stxnamespace = current_schema()::regnamespace AND stxname LIKE 'nx\\_st\\_%'`,
    [],
  );
  if (Number(rows[0]?.n ?? 0) + keys.length > MAX_KEY_STATISTICS) return;
  for (const key of keys) {
    // Each on its own: two builds adding a path's statistics at once (42710 or 23505) leave one, as good.
    await runDdl(pool, keyStatisticsSql(key.parts), options).catch(() => {});
  }
}

/**
 * Statistics of an expression index are gathered only by ANALYZE, which autovacuum runs when rows change,
 * not when an index appears (and PGlite has no autovacuum at all): without them the planner guesses, and
 * may walk a whole collection instead of using the new index. ANALYZE samples a bounded number of rows.
 */
export async function analyzeDocuments(pool: pg.Pool, options: DdlOptions): Promise<void> {
  await runDdl(pool, 'ANALYZE nosql_documents, nosql_key_entries', options);
  // Counts read the entries by an Index Only Scan, which skips their heap only on all-visible pages. PostgreSQL's
  // autovacuum sees to that (the table's own settings, migration 0020); the embedded store has none, so the
  // entries a build wrote are made all-visible here (VACUUM skips the pages that are already).
  if (!options.concurrently) await runDdl(pool, 'VACUUM nosql_key_entries', options);
}

function checkPgName(pgName: string): void {
  if (!/^nx_[0-9a-f]{40}$/.test(pgName)) throw new Error('not an API index name');
}

export async function dropPgIndex(pool: pg.Pool, pgName: string, options: DdlOptions): Promise<void> {
  checkPgName(pgName);
  await forgetKeyIndexes(pool, [pgName]);
  await runDdl(pool, `DROP INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF EXISTS ${pgName}`, options);
}

/** The collection's catalogued indexes, oldest first. */
export async function indexRows(db: Db, scope: Scope): Promise<IndexRow[]> {
  const { rows } = await query<IndexRow>(
    db,
    `SELECT name, keys, "unique", pg_name FROM nosql_indexes
     WHERE game_id = $1 AND stage = $2 AND collection = $3 ORDER BY created_at, name`,
    [scope.game, scope.stage, scope.collection],
  );
  return rows;
}

/** Records a built index; false when one of that name was recorded meanwhile (that one is kept). */
export async function recordIndex(db: Db, scope: Scope, row: IndexRow): Promise<boolean> {
  const inserted = await query(
    db,
    `INSERT INTO nosql_indexes (game_id, stage, collection, name, keys, "unique", pg_name)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) ON CONFLICT (game_id, stage, collection, name) DO NOTHING`,
    [scope.game, scope.stage, scope.collection, row.name, JSON.stringify(row.keys), row.unique, row.pg_name],
  );
  return inserted.rowCount === 1;
}

/** Forgets the named index; answers its PostgreSQL name, or undefined when there is none of that name. */
export async function forgetIndex(db: Db, scope: Scope, name: string): Promise<string | undefined> {
  const { rows } = await query<{ pg_name: string }>(
    db,
    `DELETE FROM nosql_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 AND name = $4 RETURNING pg_name`,
    [scope.game, scope.stage, scope.collection, name],
  );
  return rows[0]?.pg_name;
}

/**
 * Forgets every index of the collection, with their count entries (so that a removal of the documents after it,
 * in the same transaction, has no entries to delete); answers their PostgreSQL names for dropPgIndex after commit.
 */
export async function forgetIndexes(db: Db, scope: Scope): Promise<string[]> {
  const { rows } = await query<{ pg_name: string }>(
    db,
    'DELETE FROM nosql_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 RETURNING pg_name',
    [scope.game, scope.stage, scope.collection],
  );
  const names = rows.map((r) => r.pg_name);
  await forgetKeyIndexes(db, names);
  return names;
}

/** The API name of the index a constraint (of a unique violation) is: "_id_" for the primary key. */
export async function indexNameOf(db: Db, scope: Scope, constraint: string | undefined): Promise<string> {
  if (constraint === undefined || constraint === PRIMARY_KEY) return '_id_';
  const { rows } = await query<{ name: string }>(
    db,
    'SELECT name FROM nosql_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 AND pg_name = $4',
    [scope.game, scope.stage, scope.collection, constraint],
  );
  return rows[0]?.name ?? constraint;
}

/** Size in bytes of one PostgreSQL index (0 when it is gone). */
export async function pgIndexSize(db: Db, pgName: string): Promise<number> {
  const { rows } = await query<{ n: string | null }>(db, 'SELECT pg_relation_size(to_regclass($1)) AS n', [
    pgName,
  ]);
  return Number(rows[0]?.n ?? 0);
}

/** How many indexes the game's stage has made, and their bytes. */
export async function stageIndexTotals(db: Db, scope: GameScope): Promise<{ count: number; size: number }> {
  const { rows } = await query<{ n: string; size: string | null }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(pg_relation_size(to_regclass(pg_name))), 0)::int8 AS size
     FROM nosql_indexes WHERE game_id = $1 AND stage = $2`,
    [scope.game, scope.stage],
  );
  return { count: Number(rows[0]?.n ?? 0), size: Number(rows[0]?.size ?? 0) };
}

/** The indexes of the stage's meta collections (snapshots), by collection, then as made. */
export async function metaIndexRows(
  db: Db,
  scope: GameScope,
): Promise<Array<{ collection: string; name: string; keys: [string, 1 | -1][]; unique: boolean }>> {
  const { rows } = await query<{
    collection: string;
    name: string;
    keys: [string, 1 | -1][];
    unique: boolean;
  }>(
    db,
    `SELECT collection, name, keys, "unique" FROM nosql_indexes
     WHERE game_id = $1 AND stage = $2 AND starts_with(collection, 'meta.') ORDER BY collection, created_at, name`,
    [scope.game, scope.stage],
  );
  return rows;
}
