// Counting documents: one count(*) statement, over the index's count entries (migration 0020) when the filter is
// key tests on one indexed path, else over the documents.
import type { FilterNode } from '../query/filter.js';
import { needsResidual } from '../query/filter-residual.js';
import { type ArrayFacts, entriesTest } from '../query/filter-sql.js';
import { type CompiledWhere, readTextBatches, whereSql } from './document-reads.js';
import { arrayFacts, recordedSql } from './multikey.js';
import { planCachedQuery, query } from './query.js';
import { cachedPlan, indexChoices, integer } from './read-plans.js';
import { type Db, type Scope, scopeLiterals } from './scope.js';

/**
 * The number of matches. A count compiled for array-free fields also answers whether one of them has been
 * recorded in its own snapshot (`stale`, src/store/multikey.ts); if so it is compiled again with the record
 * read afresh (without any facts after a few rounds). Otherwise its count is exact, 0 included, in one statement.
 */
export async function countMatches(db: Db, scope: Scope, filter: FilterNode): Promise<number> {
  if (needsResidual(filter)) {
    let n = 0;
    for await (const texts of readTextBatches(db, scope, { filter, sort: [], skip: 0, limit: undefined }))
      n += texts.length;
    return n;
  }
  let facts: ArrayFacts | undefined = await arrayFacts(db, scope);
  for (let attempt = 1; ; attempt++) {
    const stmt = countSql(scope, filter, facts);
    const run = cachedPlan(stmt, undefined, facts) ? planCachedQuery : query;
    const { rows } = await run<{ n: string; stale: boolean }>(db, stmt.text, stmt.values);
    if (rows[0]?.stale !== true) return Number(rows[0]?.n ?? 0);
    facts = attempt < 3 ? await arrayFacts(db, scope, true) : undefined;
  }
}

/**
 * A count's one statement: count(*) over the filter's WHERE (no residual part: countMatches checks those in
 * JS), and `stale`: whether a field the SQL relied on being array-free is in the record, read in the same
 * snapshot (one statement, one snapshot), so the count stands exactly when it is false. With facts, an
 * equality, $in or range on an array-free indexed path is the index condition alone: PostgreSQL counts the
 * index entries and visits each one's heap page for visibility only, reading no document. An empty filter
 * references no document at all and is an Index Only Scan (docs/query-engine.md).
 */
export function countSql(scope: Scope, filter: FilterNode, facts?: ArrayFacts): CompiledWhere {
  const values: unknown[] = [];
  const entries = facts === undefined ? undefined : entriesCountSql(scope, filter, facts, values);
  if (entries !== undefined) return entries;
  const where = whereSql(scope, filter, values, facts, false);
  const args = scopeLiterals(scope) ?? ['$1', '$2', '$3'];
  const stale = facts === undefined ? 'FALSE' : recordedSql(facts, values, args);
  return {
    text: `SELECT count(*) AS n, ${stale} AS stale FROM nosql_documents WHERE ${where}`,
    values,
    indexed: indexChoices(scope, filter, facts),
  };
}

/**
 * A count of key tests on one path with count entries (migration 0020, store/key-entries.ts): count(*) of the
 * index's entries, an Index Only Scan of their primary key. Stale also when the index is no longer ready in the
 * statement's snapshot (dropped meanwhile): the count is compiled again with the facts read afresh.
 */
function entriesCountSql(
  scope: Scope,
  filter: FilterNode,
  facts: ArrayFacts,
  values: unknown[],
): CompiledWhere | undefined {
  const literals = scopeLiterals(scope);
  if (literals === undefined) return undefined;
  const test = entriesTest(filter, 'key', values, facts);
  if (test === undefined) return undefined;
  const index = integer(test.index);
  const stale = `(${recordedSql(facts, values, literals)} OR NOT pb_key_index_ready(${index}))`;
  // Planned at each run, not on a cached plan: the entries table of a young installation grows by orders of
  // magnitude, and a generic plan made while it was small (a scan of it) would be kept for the connection's life
  // on the embedded store, whose one session never sees an autovacuum ANALYZE.
  return {
    text: `SELECT count(*) AS n, ${stale} AS stale FROM nosql_key_entries WHERE index_id = ${index} AND ${test.sql}`,
    values,
    indexed: undefined,
  };
}
