// Reading documents: the SELECT a filter, sort, skip and limit compile to, read in batches, and its EXPLAIN.
import { queryErrors } from '../query/errors.js';
import { compileFilter, type FilterNode, matchesFilter } from '../query/filter.js';
import { needsResidual, relaxForSql } from '../query/filter-residual.js';
import { compileSort, type SortSpec } from '../query/sort.js';
import { type Doc, fromStored, idKey, ObjectId } from '../query/values.js';
import { query } from './query.js';
import type { Db, Scope } from './scope.js';

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
 * `game_id = $1 AND stage = $2 AND collection = $3 AND <filter>`. An equality on _id with a string or
 * ObjectId also compares the id column (the primary key): such an _id has exactly one key, so it adds no
 * wrong match and lets the planner use the primary key.
 */
export function whereSql(scope: Scope, filter: FilterNode, params: unknown[]): string {
  params.push(scope.game, scope.stage, scope.collection);
  // Predicates without a SQL form are relaxed here; the reader checks the filter again (filter-residual.ts).
  const sql = compileFilter(relaxForSql(filter), 'doc', params);
  const parts = ['game_id = $1', 'stage = $2', 'collection = $3', sql];
  const id = idEquality(filter);
  if (id !== undefined) {
    params.push(id);
    parts.push(`id = $${params.length}`);
  }
  return parts.join(' AND ');
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
}

export function compileWhere(scope: Scope, filter: FilterNode): CompiledWhere {
  const values: unknown[] = [];
  return { text: whereSql(scope, filter, values), values };
}

export function selectSql(
  where: CompiledWhere,
  sort: string,
  batch: Batch,
  columns = DOC_COLUMNS,
): { text: string; values: unknown[] } {
  const values = [...where.values];
  let text = where.text;
  if (batch.afterId !== undefined) {
    values.push(batch.afterId);
    text += ` AND id > $${values.length}`;
  }
  const order = batch.ordered === false ? '' : ` ORDER BY ${sort === '' ? 'id' : `${sort}, id`}`;
  values.push(batch.offset);
  let sql = `SELECT ${columns} FROM nosql_documents WHERE ${text}${order} OFFSET $${values.length}`;
  if (batch.limit !== undefined) {
    values.push(batch.limit);
    sql += ` LIMIT $${values.length}`;
  }
  return { text: sql, values };
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

function readSqlBatches(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<string[]> {
  const read = {
    where: compileWhere(scope, plan.filter),
    sort: compileSort(plan.sort, 'doc'),
    inTime: deadlineOf(plan),
  };
  if (plan.sort.length === 0) return readInIdOrder(db, read, plan);
  if (plan.limit !== undefined && plan.limit <= FIRST_BATCH) return readOnce(db, read, plan);
  return readSorted(db, scope, read, plan);
}

/**
 * A filter with a residual part ($expr, bitwise operators): the relaxed SQL reads every candidate in the sort
 * order, the whole filter is checked on each, and skip and limit count exact matches only.
 */
async function* readResidual(db: Db, scope: Scope, plan: ReadPlan): AsyncGenerator<string[]> {
  let skip = plan.skip;
  let left = plan.limit ?? Number.POSITIVE_INFINITY;
  for await (const texts of readSqlBatches(db, scope, { ...plan, skip: 0, limit: undefined })) {
    const kept: string[] = [];
    for (const text of texts) {
      if (left <= 0 || !matchesFilter(plan.filter, parseStored(text))) continue;
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

async function* readOnce(db: Db, read: Read, plan: ReadPlan): AsyncGenerator<string[]> {
  const stmt = selectSql(read.where, read.sort, { afterId: undefined, offset: plan.skip, limit: plan.limit });
  read.inTime();
  const { rows } = await query<{ id: string; doc: string }>(db, stmt.text, stmt.values);
  if (rows.length > 0) yield toTexts(rows);
}

/**
 * Unsorted. A first statement without ORDER BY asks for one row more than a batch: most finds match a few
 * documents, and without an order the planner picks the index that finds them (with ORDER BY id it may walk
 * the primary key instead, testing every document of the collection). When more match, the read starts
 * again in id order, in keyset batches on the primary key, each going on after the last id read.
 */
async function* readInIdOrder(db: Db, read: Read, plan: ReadPlan): AsyncGenerator<string[]> {
  if (plan.skip === 0) {
    const probe = plan.limit === undefined ? FIRST_BATCH + 1 : Math.min(plan.limit, FIRST_BATCH + 1);
    const stmt = selectSql(read.where, read.sort, {
      afterId: undefined,
      offset: 0,
      limit: probe,
      ordered: false,
    });
    read.inTime();
    const { rows } = await query<{ id: string; doc: string }>(db, stmt.text, stmt.values);
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
    const stmt = selectSql(read.where, read.sort, { afterId, offset, limit: want });
    read.inTime();
    const { rows } = await query<{ id: string; doc: string }>(db, stmt.text, stmt.values);
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
  const stmt = selectSql(read.where, read.sort, batch, 'id');
  read.inTime();
  const ids = (await query<{ id: string }>(db, stmt.text, stmt.values)).rows.map((r) => r.id);
  let size = FIRST_BATCH;
  for (let i = 0; i < ids.length; i += size, size = Math.min(MAX_BATCH, size * 4)) {
    const chunk = ids.slice(i, i + size);
    read.inTime();
    const { rows } = await query<{ id: string; doc: string }>(
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

export async function countMatches(db: Db, scope: Scope, filter: FilterNode): Promise<number> {
  if (needsResidual(filter)) {
    let n = 0;
    for await (const texts of readResidual(db, scope, { filter, sort: [], skip: 0, limit: undefined }))
      n += texts.length;
    return n;
  }
  const values: unknown[] = [];
  const where = whereSql(scope, filter, values);
  const { rows } = await query<{ n: string }>(
    db,
    `SELECT count(*) AS n FROM nosql_documents WHERE ${where}`,
    values,
  );
  return Number(rows[0]?.n ?? 0);
}

/** PostgreSQL's plan of the first statement a find runs, as EXPLAIN (FORMAT JSON) gives it. */
export async function explainRead(db: Db, scope: Scope, plan: ReadPlan): Promise<unknown> {
  const unordered = plan.sort.length === 0 && plan.skip === 0;
  const cap = unordered ? FIRST_BATCH + 1 : FIRST_BATCH;
  const limit = plan.limit === undefined ? cap : Math.min(plan.limit, cap);
  const batch = { afterId: undefined, offset: plan.skip, limit, ordered: !unordered };
  const stmt = selectSql(compileWhere(scope, plan.filter), compileSort(plan.sort, 'doc'), batch);
  const { rows } = await query<{ 'QUERY PLAN': unknown }>(
    db,
    `EXPLAIN (FORMAT JSON) ${stmt.text}`,
    stmt.values,
  );
  const out = rows[0]?.['QUERY PLAN'];
  return Array.isArray(out) ? out[0] : out;
}
