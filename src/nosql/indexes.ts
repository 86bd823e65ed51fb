// Indexes made through the API: PostgreSQL expression indexes on nosql_documents, partial on one collection,
// over the very expressions the query compiler emits (src/query/indexes.ts), recorded in nosql_indexes.
//
// On PostgreSQL they are built and dropped CONCURRENTLY, so one game's index build never blocks the writes
// of every other game sharing the table; that cannot run inside a transaction, so the catalogue row is
// written after the build (an index missing from the catalogue is harmless; the reverse never happens).
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { type IndexField, indexColumnsSql } from '../query/indexes.js';
import { nosqlErrors } from './errors.js';
import { assertSafeScope, type Db, type Scope } from './scope.js';
import { query } from './sql.js';

export interface IndexSpec {
  name: string;
  keys: IndexField[];
  unique: boolean;
}

export interface IndexDescription {
  v: 2;
  key: Record<string, 1 | -1>;
  name: string;
  unique?: true;
}

export interface DdlOptions {
  /** PostgreSQL: CREATE/DROP INDEX CONCURRENTLY (PGlite has one connection and no CONCURRENTLY). */
  concurrently: boolean;
  /** Index builds may outlast the 10 s query limit; this is theirs. */
  buildTimeoutMs: number;
}

const ID_INDEX = '_id_';
const MAX_INDEXES = 64;
const INDEX_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

export function checkIndexName(name: string): string {
  if (!INDEX_NAME.test(name) || name === ID_INDEX) throw nosqlErrors.badIndexName(name.slice(0, 200));
  return name;
}

/** At most 63 bytes; random, so a build left behind by a crash never collides with a later one. */
function newPgName(scope: Scope, name: string): string {
  const hash = createHash('sha256')
    .update(`${scope.game}\0${scope.stage}\0${scope.collection}\0${name}\0`)
    .update(randomBytes(16))
    .digest('hex');
  return `nx_${hash.slice(0, 40)}`;
}

function createSql(scope: Scope, pgName: string, spec: IndexSpec, concurrently: boolean): string {
  // DDL takes no bind parameters: the scope is checked against strict patterns, then quoted as literals.
  assertSafeScope(scope);
  const lit = (s: string) => pg.escapeLiteral(s);
  const columns = indexColumnsSql(spec.keys, 'doc', spec.unique);
  return (
    `CREATE ${spec.unique ? 'UNIQUE ' : ''}INDEX ${concurrently ? 'CONCURRENTLY ' : ''}${pgName} ON nosql_documents ` +
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

/**
 * Statistics of an expression index are gathered only by ANALYZE, which autovacuum runs when rows change,
 * not when an index appears (and PGlite has no autovacuum at all): without them the planner guesses, and
 * may walk a whole collection instead of using the new index. ANALYZE samples a bounded number of rows.
 */
async function analyzeDocuments(pool: pg.Pool, options: DdlOptions): Promise<void> {
  await runDdl(pool, 'ANALYZE nosql_documents', options);
}

export async function dropPgIndex(pool: pg.Pool, pgName: string, options: DdlOptions): Promise<void> {
  if (!/^nx_[0-9a-f]{40}$/.test(pgName)) throw new Error('not an API index name');
  await runDdl(pool, `DROP INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF EXISTS ${pgName}`, options);
}

interface IndexRow {
  name: string;
  keys: Array<[string, 1 | -1]>;
  unique: boolean;
  pg_name: string;
}

async function indexRows(db: Db, scope: Scope): Promise<IndexRow[]> {
  const { rows } = await query<IndexRow>(
    db,
    `SELECT name, keys, "unique", pg_name FROM nosql_indexes
     WHERE game_id = $1 AND stage = $2 AND collection = $3 ORDER BY created_at, name`,
    [scope.game, scope.stage, scope.collection],
  );
  return rows;
}

const keyPairs = (keys: IndexField[]) => keys.map((k) => [k.path, k.dir] as [string, 1 | -1]);
const sameKeys = (a: Array<[string, number]>, b: Array<[string, number]>) =>
  JSON.stringify(a) === JSON.stringify(b);

/** 'exists' when an identical index of that name is there already; 409 for any other clash. */
function checkAgainst(rows: IndexRow[], spec: IndexSpec): 'exists' | undefined {
  const pairs = keyPairs(spec.keys);
  const named = rows.find((r) => r.name === spec.name);
  if (named) {
    if (sameKeys(named.keys, pairs) && named.unique === spec.unique) return 'exists';
    throw nosqlErrors.indexConflict(`an index named ${spec.name} exists with other keys or options`);
  }
  const twin = rows.find((r) => sameKeys(r.keys, pairs));
  if (twin) throw nosqlErrors.indexConflict(`index ${twin.name} has the same keys`);
  if (pairs.length === 1 && pairs[0]![0] === '_id' && !spec.unique) {
    throw nosqlErrors.indexConflict(`index ${ID_INDEX} has the same keys`);
  }
  if (rows.length + 1 >= MAX_INDEXES) throw nosqlErrors.tooManyIndexes(MAX_INDEXES);
  return undefined;
}

export async function createIndex(
  pool: pg.Pool,
  scope: Scope,
  spec: IndexSpec,
  options: DdlOptions,
): Promise<'created' | 'exists'> {
  if (checkAgainst(await indexRows(pool, scope), spec)) return 'exists';
  const pgName = newPgName(scope, spec.name);
  try {
    await runDdl(pool, createSql(scope, pgName, spec, options.concurrently), options);
  } catch (e) {
    // A failed concurrent build leaves an invalid index behind.
    if (options.concurrently) await dropPgIndex(pool, pgName, options).catch(() => {});
    // Existing documents repeat a key: name the index asked for, not its PostgreSQL name.
    if ((e as { code?: string }).code === '23505') throw nosqlErrors.duplicateKey(spec.name);
    throw e;
  }
  const inserted = await query(
    pool,
    `INSERT INTO nosql_indexes (game_id, stage, collection, name, keys, "unique", pg_name)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) ON CONFLICT (game_id, stage, collection, name) DO NOTHING`,
    [
      scope.game,
      scope.stage,
      scope.collection,
      spec.name,
      JSON.stringify(keyPairs(spec.keys)),
      spec.unique,
      pgName,
    ],
  );
  if (inserted.rowCount === 1) {
    await analyzeDocuments(pool, options);
    return 'created';
  }
  // Another request made an index of this name meanwhile: keep theirs.
  await dropPgIndex(pool, pgName, options);
  return checkAgainst(await indexRows(pool, scope), spec) ?? 'created';
}

export async function listIndexes(db: Db, scope: Scope): Promise<IndexDescription[]> {
  const rows = await indexRows(db, scope);
  return [
    { v: 2, key: { _id: 1 }, name: ID_INDEX },
    ...rows.map((r) => ({
      v: 2 as const,
      key: Object.fromEntries(r.keys) as Record<string, 1 | -1>,
      name: r.name,
      ...(r.unique ? { unique: true as const } : {}),
    })),
  ];
}

export async function dropIndex(
  pool: pg.Pool,
  scope: Scope,
  name: string,
  options: DdlOptions,
): Promise<void> {
  if (name === ID_INDEX) throw nosqlErrors.badIndexName(`${ID_INDEX} cannot be dropped`);
  const { rows } = await query<{ pg_name: string }>(
    pool,
    `DELETE FROM nosql_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 AND name = $4 RETURNING pg_name`,
    [scope.game, scope.stage, scope.collection, name],
  );
  const row = rows[0];
  if (!row) throw nosqlErrors.indexNotFound(name, scope.collection);
  await dropPgIndex(pool, row.pg_name, options);
}

/** Forgets every index of the collection; answers their PostgreSQL names for dropPgIndex after commit. */
export async function forgetIndexes(db: Db, scope: Scope): Promise<string[]> {
  const { rows } = await query<{ pg_name: string }>(
    db,
    'DELETE FROM nosql_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 RETURNING pg_name',
    [scope.game, scope.stage, scope.collection],
  );
  return rows.map((r) => r.pg_name);
}

/** API index names by PostgreSQL name, for explain. */
export async function indexNamesByPgName(db: Db, scope: Scope): Promise<Map<string, string>> {
  const rows = await indexRows(db, scope);
  return new Map([
    ['nosql_documents_pkey', ID_INDEX],
    ...rows.map((r) => [r.pg_name, r.name] as [string, string]),
  ]);
}

/** Sizes in bytes of the collection's indexes, by API name (the _id index is shared by all collections: omitted). */
export async function indexSizes(db: Db, scope: Scope): Promise<Record<string, number>> {
  const rows = await indexRows(db, scope);
  const out: Record<string, number> = {};
  for (const r of rows) {
    const { rows: size } = await query<{ n: string | null }>(
      db,
      'SELECT pg_relation_size(to_regclass($1)) AS n',
      [r.pg_name],
    );
    out[r.name] = Number(size[0]?.n ?? 0);
  }
  return out;
}
