// The multikey record (migration 0014): per collection, the top-level fields that have held an array in some
// document. Triggers on nosql_documents add a field in the transaction that writes the array, and rows are
// never removed, so the record only grows while the collection lives.
//
// A read compiles its filter and sort with the record it knows (cached per pool: most reads cost no extra
// statement) and lets paths on fields not in it skip MongoDB's array arm. The cache may lag behind the table,
// never ahead of it, so every statement that relied on a field being array-free checks that in its own
// snapshot (`guardSql`, a one-time filter calling a STABLE function): when the field has been recorded
// meanwhile, the statement answers no rows, and the read, seeing no rows, asks the table (`stillArrayFree`); if
// the field is recorded the read refreshes the cache and runs again with the array arm. Because the record only
// grows, a field not recorded now was not recorded at the statement's snapshot either, so an empty answer it
// confirms is exact.
import type { ArrayFacts } from '../query/filter-sql.js';
import { query } from './query.js';
import type { Db, Scope } from './scope.js';

/**
 * The record's primary key, which the check of a read uses. Since migration 0019 the check is a function call
 * and its index no longer shows in a plan; explain still leaves it out of the indexes used.
 */
export const MULTIKEY_INDEX = 'nosql_multikey_pkey';

/** Collections remembered per pool; past this the oldest is forgotten (it is read again when next used). */
const MAX_CACHED = 10_000;
/**
 * A remembered entry is read again after this long, so that indexes built or dropped by another server
 * process are seen (they only decide how a filter is written, never its answer; the record is exact anyway).
 */
const MAX_AGE_MS = 10_000;

interface Known {
  /** The record: top-level fields that have held an array. */
  fields: Set<string>;
  /** First key paths of the collection's non-unique indexes (pb_pk expressions). */
  leading: Set<string>;
  /** First key paths of all its indexes, unique ones included. */
  indexed: Set<string>;
  /** The count entries (key-entries.ts) of its ready indexes: their id by first key path. */
  entries: Map<string, number>;
  readAt: number;
}

const caches = new WeakMap<object, Map<string, Known>>();

const keyOf = (scope: Scope) => JSON.stringify([scope.game, scope.stage, scope.collection]);

/** A pool that stands for another's connections (an execution's transaction): it also reads that one's cache. */
const owners = new WeakMap<object, object>();

/**
 * `alias` runs its statements on a connection of `owner` (inside a transaction): its reads use and feed what
 * `owner` knows; a refresh after a guard failed (stillArrayFree) stays with `alias`.
 */
export function shareArrayFacts(alias: object, owner: Db): void {
  // An alias of an alias (a nested execution's savepoint) shares with the pool at the root.
  owners.set(alias, owners.get(owner) ?? owner);
}

function cacheOf(db: Db): Map<string, Known> {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

async function readRecord(db: Db, scope: Scope, into: object = db): Promise<Known> {
  const { rows } = await query<{
    kind: 'field' | 'index' | 'unique' | 'entries';
    name: string;
    id: string | null;
  }>(
    db,
    `SELECT 'field' AS kind, field AS name, NULL::int8 AS id FROM nosql_multikey
      WHERE game_id = $1 AND stage = $2 AND collection = $3
     UNION ALL
     SELECT CASE WHEN "unique" THEN 'unique' ELSE 'index' END, keys->0->>0, NULL FROM nosql_indexes
      WHERE game_id = $1 AND stage = $2 AND collection = $3
     UNION ALL
     SELECT 'entries', array_to_string(path, '.'), id FROM nosql_key_indexes
      WHERE game_id = $1 AND stage = $2 AND collection = $3 AND ready`,
    [scope.game, scope.stage, scope.collection],
  );
  const entries = new Map<string, number>();
  for (const r of rows) {
    // The first registered when two indexes share a path.
    if (r.kind === 'entries' && !(entries.get(r.name)! <= Number(r.id))) entries.set(r.name, Number(r.id));
  }
  const known: Known = {
    fields: new Set(rows.filter((r) => r.kind === 'field').map((r) => r.name)),
    leading: new Set(rows.filter((r) => r.kind === 'index').map((r) => r.name)),
    indexed: new Set(rows.filter((r) => r.kind === 'index' || r.kind === 'unique').map((r) => r.name)),
    entries,
    readAt: Date.now(),
  };
  const cache = cacheOf(into as Db);
  cache.delete(keyOf(scope));
  cache.set(keyOf(scope), known);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return known;
}

/**
 * Facts for compiling one statement of a read: fields not in the (cached) record are array-free; paths that
 * lead an index are named so that their key test is written as the index condition alone.
 */
export async function arrayFacts(db: Db, scope: Scope, fresh = false): Promise<ArrayFacts> {
  const owner = owners.get(db);
  const cached = fresh
    ? undefined
    : (cacheOf(db).get(keyOf(scope)) ?? (owner ? cacheOf(owner as Db).get(keyOf(scope)) : undefined));
  // Read on a transaction, a record may include fields its own uncommitted writes added: kept for the pool, it
  // can only make a later read take the array arm where it was not needed (never a wrong answer) until it expires.
  const { fields, leading, indexed, entries } =
    cached !== undefined && Date.now() - cached.readAt < MAX_AGE_MS
      ? cached
      : await readRecord(db, scope, owner ?? db);
  return {
    arrayFree: (field) => !fields.has(field),
    relied: new Set(),
    leadsIndex: (path) => leading.has(path),
    indexed: (path) => indexed.has(path),
    keyEntries: (path) => entries.get(path),
  };
}

/**
 * The one-time filter a statement adds when it relied on fields being array-free: true while none of them is
 * in the record, in the statement's own snapshot. `scope` is how the statement writes its game, stage and
 * collection (literals, or the parameters whereSql bound first).
 */
export function guardSql(facts: ArrayFacts, params: unknown[], scope: readonly string[]): string {
  if (facts.relied.size === 0) return 'TRUE';
  params.push([...facts.relied]);
  // A STABLE function (migration 0019) reads the record in the statement's snapshot; a sub-select did the same
  // but was planned again with every statement.
  return `pb_multikey_free(${scope.join(', ')}, $${params.length}::text[])`;
}

/**
 * True when one of the relied fields is in the record, in the statement's snapshot: a count selects it beside
 * its count(*) instead of filtering on it, so that a count of 0 is confirmed by the same statement.
 */
export function recordedSql(facts: ArrayFacts, params: unknown[], scope: readonly string[]): string {
  if (facts.relied.size === 0) return 'FALSE';
  return `NOT ${guardSql(facts, params, scope)}`;
}

/**
 * After a statement that relied on facts answered no rows: true when none of the relied fields is recorded
 * (the empty answer stands); false when one is (the cache is refreshed: compile again and rerun).
 */
export async function stillArrayFree(db: Db, scope: Scope, facts: ArrayFacts): Promise<boolean> {
  if (facts.relied.size === 0) return true;
  const { fields } = await readRecord(db, scope);
  return ![...facts.relied].some((f) => fields.has(f));
}
