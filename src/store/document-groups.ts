// $count and $group after a pushed-down $match, as one SQL statement (src/query/aggregate-sql.ts says which
// pipelines qualify and turns the rows into documents). Grouping is by the text of the key path's value (with
// a count of strings where a text could also be another type's), the totals are exact (numeric sums) with the
// facts the evaluator needs to know whether it would agree.
import type pg from 'pg';
import type { GroupRow, SqlAggregate } from '../query/aggregate-sql.js';
import { pathSql } from '../query/field-path.js';
import type { FilterNode } from '../query/filter.js';
import { type ArrayFacts, pathArrayFree } from '../query/filter-sql.js';
import { withTransaction } from './db.js';
import { whereSql } from './document-reads.js';
import { arrayFacts, stillArrayFree } from './multikey.js';
import { query } from './query.js';
import type { Db, Scope } from './scope.js';

type Group = Extract<SqlAggregate, { kind: 'group' }>;

/** The first characters of JSON texts that are not strings: - 0-9 [ f n t { (aggregate-sql.ts reads them too). */
const JSON_STARTS = [...'-0123456789[fnt{'].map((c) => c.charCodeAt(0));

/** A path's value as the expression "$a.b" gives it: a top-level field always, a deeper one if array-free. */
function valueSql(parts: string[], facts: ArrayFacts | undefined): string | undefined {
  if (parts.length > 1 && !pathArrayFree(parts, facts)) return undefined;
  return `(doc #> ${pathSql(parts)})`;
}

function groupSql(
  agg: Group,
  facts: ArrayFacts | undefined,
  scope: Scope,
  filter: FilterNode,
  maxGroups: number,
) {
  const values: unknown[] = [];
  // Three levels, each fenced with OFFSET 0 so that PostgreSQL computes each path's value once per row (a
  // flattened subquery repeats the expression wherever the outer level names its column).
  const paths: string[] = ['id'];
  const inner: string[] = ['id'];
  const outer: string[] = ['count(*) AS n'];
  let group = '';
  if ('parts' in agg.id) {
    const v = valueSql(agg.id.parts, facts);
    if (v === undefined) return undefined;
    // Grouped by the key's text (`#>>`: a string's own text, JSON text for the rest, NULL for null and
    // missing), which hashes far cheaper than JSONB. Only a text that starts like JSON of another type (a
    // number, true/false/null, an array, a document) can hold both a string and a non-string: for those rows
    // alone the type is read, and the group counts its strings (finishGroup gives up on a mix).
    paths.push('doc', `(doc #>> ${pathSql(agg.id.parts)}) AS k`);
    inner.push(
      'k',
      `CASE WHEN ascii(k) IN (${JSON_STARTS.join(', ')}) THEN jsonb_typeof(${v}) = 'string' END AS ks`,
    );
    outer.push('k AS key', 'count(*) FILTER (WHERE ks) AS ns');
    group = ' GROUP BY k';
  } else outer.push('NULL AS key', '0 AS ns');
  let t = 0;
  for (const f of agg.fields) {
    if (f.kind === 'count') continue;
    const v = valueSql(f.parts, facts);
    if (v === undefined) return undefined;
    t += 1;
    // The number as numeric (once per row); a tagged long or special double as numeric NaN, which PostgreSQL
    // orders above every number, so the group's max tells it (o) and fails the int32 check.
    const j = `j${t}`;
    paths.push(`${v} AS ${j}`);
    inner.push(
      `CASE jsonb_typeof(${j}) WHEN 'number' THEN (${j})::numeric WHEN 'object' THEN CASE WHEN ${j} ? '$numberLong' OR ${j} ? '$numberDouble' THEN 'NaN'::numeric END END AS n${t}`,
    );
    outer.push(
      `sum(n${t}) AS s${t}`,
      `count(n${t}) AS c${t}`,
      `coalesce(max(scale(n${t})) = 0 AND min(n${t}) >= -2147483648 AND max(n${t}) <= 2147483647, true) AS i${t}`,
      `coalesce(max(n${t}) = 'NaN'::numeric, false) AS o${t}`,
    );
  }
  const where = whereSql(scope, filter, values, facts);
  values.push(maxGroups + 1);
  const rows = `SELECT ${paths.join(', ')} FROM nosql_documents WHERE ${where} OFFSET 0`;
  const text = `SELECT ${outer.join(', ')} FROM (SELECT ${inner.join(', ')} FROM (${rows}) AS r OFFSET 0) AS d${group} ORDER BY min(id) LIMIT $${values.length}`;
  return { text, values, totals: t };
}

/**
 * How the group statement runs on a pool: in a read-only transaction whose planner reads every match as a
 * bitmap heap scan (each heap page once, in page order: the order of an index is worth nothing to a GROUP BY)
 * and without parallel workers. Left alone, PostgreSQL walks the index of a wide range tuple by tuple (the
 * pb_pk calls of the bitmap's recheck are costed per row, never run on exact pages), or, with workers, ships
 * every matching document through the Gather; both took about 1.5 times the CPU of this plan
 * (docs/query-engine.md, "The group statement's plan"). set_config(..., true) is SET LOCAL: the settings end
 * with the transaction. One statement a call: a compute thread's stand-in for the pool takes one result each.
 */
const PLAN =
  "SELECT set_config('enable_indexscan', 'off', true), " +
  "set_config('max_parallel_workers_per_gather', '0', true)";

/**
 * A pool (pg.Pool, the embedded store's, or a compute thread's stand-in, compute/remote-db.ts) rather
 * than one connection: only a connection has `release`.
 */
const ownsNoConnection = (db: Db): db is pg.Pool =>
  typeof (db as { release?: unknown }).release !== 'function';

/** The statement: on a pool in PLAN's transaction; on a connection as it is (the caller's transaction). */
function runGroupStatement(db: Db, text: string, values: unknown[]) {
  if (!ownsNoConnection(db)) return query<Record<string, unknown>>(db, text, values);
  return withTransaction(
    db,
    async (client) => {
      await query(client, PLAN);
      return query<Record<string, unknown>>(client, text, values);
    },
    'BEGIN READ ONLY',
  );
}

/**
 * The group rows of a $group after a $match, or undefined when a path needs the evaluator (a deeper path
 * through a field that has held arrays). More than maxGroups rows answer maxGroups + 1 (the caller refuses).
 */
export async function groupRows(
  db: Db,
  scope: Scope,
  filter: FilterNode,
  agg: Group,
  maxGroups: number,
): Promise<GroupRow[] | undefined> {
  let facts: ArrayFacts | undefined = await arrayFacts(db, scope);
  for (let attempt = 1; ; attempt++) {
    const stmt = groupSql(agg, facts, scope, filter, maxGroups);
    if (stmt === undefined) return undefined;
    const { rows } = await runGroupStatement(db, stmt.text, stmt.values);
    if (rows.length > 0 || facts === undefined || (await stillArrayFree(db, scope, facts))) {
      return rows.map((r) => ({
        key: r.key as string | null,
        n: String(r.n),
        strings: String(r.ns),
        totals: Array.from({ length: stmt.totals }, (_, i) => ({
          sum: r[`s${i + 1}`] === null ? null : String(r[`s${i + 1}`]),
          count: String(r[`c${i + 1}`]),
          int32: r[`i${i + 1}`] as boolean,
          other: r[`o${i + 1}`] as boolean,
        })),
      }));
    }
    facts = attempt < 3 ? await arrayFacts(db, scope) : undefined;
  }
}
