// Reading documents: the SELECT a filter, sort, skip and limit compile to, read in batches, and its EXPLAIN.
import { queryErrors } from '../query/errors.js';
import { compileFilter, type FilterNode } from '../query/filter.js';
import { needsResidual, relaxForSql, residualMatches } from '../query/filter-residual.js';
import type { ArrayFacts } from '../query/filter-sql.js';
import { compileSort, type SortSpec } from '../query/sort.js';
import { type Doc, fromStored, idKey, ObjectId } from '../query/values.js';
import { arrayFacts, guardSql, stillArrayFree } from './multikey.js';
import { planCachedQuery, query } from './query.js';
import { cachedPlan, indexChoices, integer, orderedBy } from './read-plans.js';
import { type Db, type Scope, scopeLiterals } from './scope.js';

export interface ReadPlan {
  filter: FilterNode;
  sort: SortSpec;
  skip: number;
  /** undefined: every match (aggregation input). */
  limit: number | undefined;
  /**
   * The read's time limit (a find's maxTimeMS), checked before each of its statements, as MongoDB checks at its
   * interrupt points; one statement stays bounded by the server's statement timeout alone.
   */
  maxTimeMs?: number | undefined;
}

interface Batch {
  /** Unsorted reads go on after the last id read (keyset). */
  afterId: string | undefined;
  offset: number;
  limit: number | undefined;
  /** false: no ORDER BY at all, so the planner is free to use any index (a result that fits one batch). */
  ordered?: boolean;
}

/** Small first batch: most finds return a few documents, and answer after one statement. */
const FIRST_BATCH = 100;
const MAX_BATCH = 1000;
/** Documents are read as their JSON text: the thread that renders them parses them (compute/). */
const DOC_COLUMNS = 'id, doc::text AS doc';

/**
 * `game_id = 'g' AND stage = 's' AND collection = 'c' AND <filter>`: the scope as literals (scopeLiterals), or
 * bound as $1..$3 when a name falls outside the patterns literals need. An equality on _id with a string or
 * ObjectId also compares the id column (the primary key): such an _id has exactly one key, so it adds no
 * wrong match and lets the planner use the primary key. With facts (reads only, src/store/multikey.ts), paths
 * on array-free fields compile without the array arm, and the statement checks the fields it relied on
 * (facts.relied, which a sort compiled before may have filled too) in its own snapshot; without `guard` the
 * caller checks them itself (a count selects recordedSql beside its count).
 */
export function whereSql(
  scope: Scope,
  filter: FilterNode,
  params: unknown[],
  facts?: ArrayFacts,
  guard = true,
): string {
  const literals = scopeLiterals(scope);
  const args = literals ?? ['$1', '$2', '$3'];
  if (literals === undefined) params.push(scope.game, scope.stage, scope.collection);
  const scoped = `game_id = ${args[0]} AND stage = ${args[1]} AND collection = ${args[2]}`;
  // An equality on _id alone is the id column's alone: an _id is never an array, so the document whose id is
  // the key is the one match. No key function runs, and the plan is the primary key's with nothing to choose.
  const only = idOnly(filter);
  if (only !== undefined) {
    params.push(only);
    return `${scoped} AND id = $${params.length}`;
  }
  // Predicates without a SQL form are relaxed here; the reader checks the filter again (filter-residual.ts).
  const parts = [scoped, compileFilter(relaxForSql(filter), 'doc', params, facts)];
  const id = idEquality(filter);
  if (id !== undefined) {
    params.push(id);
    parts.push(`id = $${params.length}`);
  }
  if (guard && facts !== undefined && facts.relied.size > 0) parts.push(guardSql(facts, params, args));
  return parts.join(' AND ');
}

/** The id key when the filter is an _id equality (string or ObjectId) and nothing else. */
function idOnly(node: FilterNode): string | undefined {
  if (node.kind === 'and')
    return node.children.length === 1 ? idOnly(node.children[0] as FilterNode) : undefined;
  return idEquality(node);
}

function idEquality(node: FilterNode): string | undefined {
  if (node.kind === 'and') {
    for (const child of node.children) {
      const id = idEquality(child);
      if (id !== undefined) return id;
    }
    return undefined;
  }
  if (node.kind !== 'path' || node.path !== '_id' || node.pred.op !== 'cmp' || node.pred.cmp !== 'eq')
    return undefined;
  const v = node.pred.value;
  return typeof v === 'string' || v instanceof ObjectId ? idKey(v) : undefined;
}

/** A filter compiled once for every statement of a read (a 500,000-value $in is one large parameter). */
export interface CompiledWhere {
  text: string;
  values: unknown[];
  /**
   * The indexes the filter gives the planner to choose from, by first key path ('_id': the primary key);
   * undefined when that is not known (no facts, or the scope bound as parameters): see cachedPlan.
   */
  indexed?: Set<string> | undefined;
}

export function compileWhere(scope: Scope, filter: FilterNode, facts?: ArrayFacts): CompiledWhere {
  const values: unknown[] = [];
  const text = whereSql(scope, filter, values, facts);
  return { text, values, indexed: indexChoices(scope, filter, facts) };
}

export function selectSql(
  where: CompiledWhere,
  sort: string,
  batch: Batch,
  columns = DOC_COLUMNS,
): Statement {
  const values = [...where.values];
  let text = where.text;
  if (batch.afterId !== undefined) {
    values.push(batch.afterId);
    text += ` AND id > $${values.length}`;
  }
  // Ties go by id in the direction of the last sort field, the order an index built by store/indexes.ts (its
  // keys, then id) gives when read forward or backward, so a sorted read with a limit stops early.
  const tie = sort.endsWith(' DESC') ? 'id DESC' : 'id';
  const order = batch.ordered === false ? '' : ` ORDER BY ${sort === '' ? 'id' : `${sort}, ${tie}`}`;
  let sql = `SELECT ${columns} FROM nosql_documents WHERE ${text}${order}`;
  // A skip is bound; a limit is written as its integer (validated by the caller, a batch size at most), as a
  // bound one would make PostgreSQL cost a cached plan for a tenth of the matches and keep planning anew.
  if (batch.offset !== 0) {
    values.push(batch.offset);
    sql += ` OFFSET $${values.length}`;
  }
  if (batch.limit !== undefined) sql += ` LIMIT ${integer(batch.limit)}`;
  return { text: sql, values, order: batch.ordered === false ? undefined : sort === '' ? 'id' : 'sort' };
}

/** A read's statement, and what it orders by (its sort, its ids, or nothing). */
interface Statement {
  text: string;
  values: unknown[];
  order?: 'sort' | 'id' | undefined;
}

/**
 * The matching documents in batches, in sort order (then by id). Each batch is its own statement, so on the
 * one-connection embedded store other requests run between batches; a document written meanwhile may be
 * seen or missed, as with a MongoDB cursor.
 */
export function readTextBatches(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<string[]> {
  if (needsResidual(plan.filter)) return readResidual(db, scope, plan);
  return readSqlBatches(db, scope, plan);
}

async function* readSqlBatches(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<string[]> {
  const read = await compileRead(db, scope, plan, await arrayFacts(db, scope));
  read.inTime = deadlineOf(plan);
  if (plan.sort.length === 0) yield* readInIdOrder(db, read, plan);
  else if (plan.limit !== undefined && plan.limit <= FIRST_BATCH) yield* readOnce(db, read, plan);
  else yield* readSorted(db, scope, read, plan);
}

/** The filter and sort compiled for one set of facts (the sort first: whereSql adds the guard for both). */
async function compileRead(
  db: Db,
  scope: Scope,
  plan: ReadPlan,
  facts: ArrayFacts | undefined,
): Promise<Read> {
  const sort = compileSort(plan.sort, 'doc', undefined, facts);
  if (facts !== undefined) facts.orderedBy = orderedBy(plan);
  const read: Read = {
    where: compileWhere(scope, plan.filter, facts),
    sort,
    inTime: () => {},
    facts,
    async rows<T extends { id: string }>(build: () => Statement) {
      for (let attempt = 1; ; attempt++) {
        const stmt = build();
        read.inTime();
        const orderPath =
          stmt.order === 'id' ? '_id' : stmt.order === 'sort' ? plan.sort[0]?.path : undefined;
        const run = cachedPlan(read.where, orderPath, read.facts) ? planCachedQuery : query;
        const { rows } = await run<T>(db, stmt.text, stmt.values);
        if (rows.length > 0 || read.facts === undefined || (await stillArrayFree(db, scope, read.facts)))
          return rows;
        // A relied-on field has held an array since the cache was filled: compile again (without any facts
        // after a few rounds, so a collection that keeps gaining array fields still gets its answer).
        const again = await compileRead(
          db,
          scope,
          plan,
          attempt < 3 ? await arrayFacts(db, scope) : undefined,
        );
        read.where = again.where;
        read.sort = again.sort;
        read.facts = again.facts;
      }
    },
  };
  return read;
}

/**
 * A filter with a residual part ($expr, bitwise operators): the relaxed SQL reads every candidate in the sort
 * order, the whole filter is checked on each, and skip and limit count exact matches only.
 */
async function* readResidual(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<string[]> {
  let skip = plan.skip;
  let left = plan.limit ?? Number.POSITIVE_INFINITY;
  const candidates = readSqlBatches(db, scope, { ...plan, skip: 0, limit: undefined });
  // Checked in bounded slices between turns of the event loop, with a cap on documents tested.
  for await (const texts of residualMatches(plan.filter, candidates, parseStored, plan)) {
    const kept: string[] = [];
    for (const text of texts) {
      if (left <= 0) continue;
      if (skip > 0) skip--;
      else {
        kept.push(text);
        left--;
      }
    }
    if (kept.length > 0) yield kept;
    if (left <= 0) return;
  }
}

/** The same batches, parsed: for a caller that works on the documents in its own thread (aggregation). */
export async function* readBatches(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<Doc[]> {
  for await (const texts of readTextBatches(db, scope, plan)) yield texts.map(parseStored);
}

export function parseStored(text: string): Doc {
  return fromStored(JSON.parse(text)) as Doc;
}

interface Read {
  where: CompiledWhere;
  sort: string;
  /** Throws once the plan's maxTimeMS has passed; called before each statement. */
  inTime: () => void;
  facts: ArrayFacts | undefined;
  /**
   * Runs the statement build() makes from where and sort; when it answers no rows and relied on array-free
   * fields, checks them (src/store/multikey.ts) and, if one has been recorded, recompiles and runs it again.
   */
  rows<T extends { id: string }>(build: () => Statement): Promise<T[]>;
}

function deadlineOf(plan: ReadPlan): () => void {
  const limit = plan.maxTimeMs;
  if (!limit) return () => {};
  const end = performance.now() + limit;
  return () => {
    if (performance.now() >= end) throw queryErrors.maxTimeExpired(limit);
  };
}

const toTexts = (rows: Array<{ doc: string }>) => rows.map((r) => r.doc);

async function* readOnce(_db: Db, read: Read, plan: ReadPlan): AsyncGenerator<string[]> {
  const rows = await read.rows<{ id: string; doc: string }>(() =>
    selectSql(read.where, read.sort, { afterId: undefined, offset: plan.skip, limit: plan.limit }),
  );
  if (rows.length > 0) yield toTexts(rows);
}

/**
 * Unsorted. A first statement without ORDER BY asks for one row more than a batch: most finds match a few
 * documents, and without an order the planner picks the index that finds them (with ORDER BY id it may walk
 * the primary key instead, testing every document of the collection). When more match, the read starts
 * again in id order, in keyset batches on the primary key, each going on after the last id read.
 */
async function* readInIdOrder(_db: Db, read: Read, plan: ReadPlan): AsyncGenerator<string[]> {
  if (plan.skip === 0) {
    const probe = plan.limit === undefined ? FIRST_BATCH + 1 : Math.min(plan.limit, FIRST_BATCH + 1);
    const rows = await read.rows<{ id: string; doc: string }>(() =>
      selectSql(read.where, read.sort, { afterId: undefined, offset: 0, limit: probe, ordered: false }),
    );
    if (rows.length <= FIRST_BATCH) {
      if (rows.length > 0) yield toTexts(rows);
      return;
    }
  }
  let fetched = 0;
  let afterId: string | undefined;
  let size = FIRST_BATCH;
  for (;;) {
    const want = plan.limit === undefined ? size : Math.min(size, plan.limit - fetched);
    if (want <= 0) return;
    const offset = afterId === undefined ? plan.skip : 0;
    const rows = await read.rows<{ id: string; doc: string }>(() =>
      selectSql(read.where, read.sort, { afterId, offset, limit: want }),
    );
    fetched += rows.length;
    if (rows.length > 0) yield toTexts(rows);
    if (rows.length < want) return;
    afterId = rows[rows.length - 1]!.id;
    size = Math.min(MAX_BATCH, size * 4);
  }
}

/**
 * Sorted: the sort runs once, over ids only (a sort key costs a function call per document, so paging with
 * OFFSET would sort again for every batch); the documents are then read by id in batches, in that order.
 */
async function* readSorted(db: Db, scope: Scope, read: Read, plan: ReadPlan): AsyncGenerator<string[]> {
  const batch = { afterId: undefined, offset: plan.skip, limit: plan.limit };
  const ids = (await read.rows<{ id: string }>(() => selectSql(read.where, read.sort, batch, 'id'))).map(
    (r) => r.id,
  );
  let size = FIRST_BATCH;
  for (let i = 0; i < ids.length; i += size, size = Math.min(MAX_BATCH, size * 4)) {
    const chunk = ids.slice(i, i + size);
    read.inTime();
    // The primary key's plan whatever the ids: a cached plan.
    const { rows } = await planCachedQuery<{ id: string; doc: string }>(
      db,
      `SELECT ${DOC_COLUMNS} FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = ANY($4::text[])`,
      [scope.game, scope.stage, scope.collection, chunk],
    );
    const byId = new Map(rows.map((r) => [r.id, r.doc]));
    // A document removed since the sort is left out, as a cursor would.
    const texts = chunk.filter((id) => byId.has(id)).map((id) => byId.get(id)!);
    if (texts.length > 0) yield texts;
  }
}

/** PostgreSQL's plan of the first statement a find runs, as EXPLAIN (FORMAT JSON) gives it. */
export async function explainRead(db: Db, scope: Scope, plan: ReadPlan): Promise<unknown> {
  const unordered = plan.sort.length === 0 && plan.skip === 0;
  const cap = unordered ? FIRST_BATCH + 1 : FIRST_BATCH;
  const limit = plan.limit === undefined ? cap : Math.min(plan.limit, cap);
  const batch = { afterId: undefined, offset: plan.skip, limit, ordered: !unordered };
  const facts = await arrayFacts(db, scope);
  const sort = compileSort(plan.sort, 'doc', undefined, facts);
  facts.orderedBy = orderedBy(plan);
  const stmt = selectSql(compileWhere(scope, plan.filter, facts), sort, batch);
  const { rows } = await query<{ 'QUERY PLAN': unknown }>(
    db,
    `EXPLAIN (FORMAT JSON) ${stmt.text}`,
    stmt.values,
  );
  const out = rows[0]?.['QUERY PLAN'];
  return Array.isArray(out) ? out[0] : out;
}
