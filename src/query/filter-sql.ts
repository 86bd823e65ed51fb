// Compiles a FilterNode to a boolean SQL expression over the JSONB document, with every operand bound.
//
// A predicate on a path compiles to two arms. The fast arm compares pb_pk(doc, path), the key of the value at
// a path that meets no array, with bound keys: `=`, `IN` and type-bracketed ranges, which a btree expression
// index on the same pb_pk expression serves (see indexes.ts). When the path meets an array pb_pk is 01 and
// the second arm walks the path with pb_walk, MongoDB's element iterator, testing each element reached.
// Both arms are exact and never NULL, so NOT of the whole is exact too ($ne, $nin, $not, $nor).
//
// With ArrayFacts (the collection's multikey record, src/store/multikey.ts), a path whose first field never
// held an array in any document compiles to the fast arm alone: a plain index condition with no array arm and
// no per-row recheck; whole-array predicates ($size, $elemMatch) on it are FALSE, and value predicates ($type,
// $regex, $mod) test the value directly. The fields relied on are collected for the read to check.

import { queryErrors } from './errors.js';
import { pathSql } from './field-path.js';
import { type ElemPred, type FilterNode, isWholeArrayPred } from './filter.js';
import { encodeKey, KEY, NAN_KEY, rankUpperBound } from './key-encoding.js';
import type { Value } from './values.js';

interface Ctx {
  params: unknown[];
  aliases: number;
  /** Only while compiling over the stored document itself (not inside $elemMatch's elements). */
  facts: ArrayFacts | undefined;
}

/** What a read knows about where arrays may be (src/store/multikey.ts); absent: arrays anywhere. */
export interface ArrayFacts {
  /** True when no document of the collection has held an array in this top-level field. */
  arrayFree(field: string): boolean;
  /** Top-level fields the compiled SQL relied on being array-free: the read checks them in its statement. */
  relied: Set<string>;
  /**
   * True when an index of the collection has this (dotted) path as its first key, so the key test is an index
   * condition. A hint only (both forms are exact): a stale answer costs speed, never a wrong result.
   */
  leadsIndex?: (path: string) => boolean;
  /** True when an index of the collection, unique or not, has this path as its first key (a hint too). */
  indexed?: (path: string) => boolean;
  /**
   * The id of a ready index whose count entries key on this path (src/store/key-entries.ts), if one is known; a
   * count that reads them checks in its own snapshot that the index is still ready.
   */
  keyEntries?: (path: string) => number | undefined;
  /**
   * The path whose index the statement walks in order to a LIMIT (its sort's first path, with a limit): a
   * range on it is written as a row comparison with the id column (see rowRange).
   */
  orderedBy?: string | undefined;
}

/** True (and noted in facts.relied) when the path can meet no array in the collection. */
export function pathArrayFree(parts: string[], facts: ArrayFacts | undefined): boolean {
  if (facts === undefined || !facts.arrayFree(parts[0]!)) return false;
  facts.relied.add(parts[0]!);
  return true;
}

const MISSING_OR_NULL = `('\\x05'::bytea, '\\x10'::bytea)`;

/** An $in list longer than this is bound as one bytea[] array, not one parameter per value. */
const IN_LIST_MAX = 32;
/**
 * Most bind parameters one filter may use, past which it answers QUERY_TOO_LARGE (400). The PostgreSQL
 * protocol carries at most 65,535 (a driver error, 500, before), and each clause is evaluated on every row
 * scanned: an $or of 20,000 equalities over 1,000 documents took 20 s on PGlite and hit the 10 s statement
 * timeout on PostgreSQL. An $in list is one parameter whatever its length.
 */
const MAX_FILTER_PARAMS = 1000;

/** Appends bind values to params and returns a boolean SQL expression using $n placeholders. */
export function compileFilter(
  node: FilterNode,
  docSql: string,
  params: unknown[],
  facts?: ArrayFacts,
): string {
  const first = params.length;
  const sql = compileNode(node, docSql, { params, aliases: 0, facts });
  if (params.length - first > MAX_FILTER_PARAMS)
    throw queryErrors.tooLarge('operand values in one filter', MAX_FILTER_PARAMS);
  return sql;
}

function compileNode(node: FilterNode, doc: string, ctx: Ctx): string {
  switch (node.kind) {
    case 'const':
      return node.value ? 'TRUE' : 'FALSE';
    case 'and':
    case 'or': {
      // An empty conjunction is true and an empty disjunction false (`{}` matches every document).
      if (node.children.length === 0) return node.kind === 'and' ? 'TRUE' : 'FALSE';
      const parts = node.children.map((c) => compileNode(c, doc, ctx));
      return `(${parts.join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'nor':
      if (node.children.length === 0) return 'TRUE';
      return `(NOT (${node.children.map((c) => compileNode(c, doc, ctx)).join(' OR ')}))`;
    case 'not':
      return `(NOT ${compileNode(node.child, doc, ctx)})`;
    case 'path':
      return compilePath(node.parts, node.pred, doc, ctx);
    case 'expr':
      throw residualOnly();
  }
}

/** $expr and the bitwise operators have no SQL form: filter-residual.ts takes them out and checks them in JS. */
function residualOnly(): Error {
  return new Error('this predicate needs a residual JavaScript check (relaxForSql first)');
}

function bind(ctx: Ctx, value: unknown): string {
  ctx.params.push(value);
  return `$${ctx.params.length}`;
}

/** A key as a bound hex text, typed: inside a row comparison PostgreSQL does not infer it from decode's signature. */
function bindKey(ctx: Ctx, key: Buffer): string {
  return `decode(${bind(ctx, key.toString('hex'))}::text, 'hex')`;
}

function alias(ctx: Ctx, prefix: string): string {
  ctx.aliases += 1;
  return `${prefix}${ctx.aliases}`;
}

function compilePath(parts: string[], pred: ElemPred, doc: string, ctx: Ctx): string {
  const path = pathSql(parts);
  if (pathArrayFree(parts, ctx.facts)) return compileArrayFreePath(parts, pred, doc, ctx);
  const w = alias(ctx, 'w');
  if (isWholeArrayPred(pred)) {
    const test = wholeCond(pred, `${w}.v`, ctx);
    return `(pb_arr(${doc}, ${path}) AND EXISTS (SELECT 1 FROM pb_walk(${doc}, ${path}, 1) AS ${w}(v) WHERE ${test}))`;
  }
  const keyTest = keyCond(pred, ctx);
  if (keyTest) {
    const pk = `pb_pk(${doc}, ${path})`;
    const slow = `EXISTS (SELECT 1 FROM pb_walk(${doc}, ${path}, 0) AS ${w}(v) WHERE ${keyTest(`pb_enc(${w}.v)`)})`;
    return `(${keyTest(pk)} OR (${pk} = '\\x01'::bytea AND ${slow}))`;
  }
  const inArray = `EXISTS (SELECT 1 FROM pb_walk(${doc}, ${path}, 0) AS ${w}(v) WHERE ${valueCond(pred, `${w}.v`, ctx)})`;
  return `(CASE WHEN pb_arr(${doc}, ${path}) THEN ${inArray} ELSE ${valueCond(pred, `(${doc} #> ${path})`, ctx)} END)`;
}

/**
 * A predicate on a path that meets no array in any document: the key test alone (an index condition). On a
 * path no index leads with, an equality on a string or boolean also compares the stored JSON (the same test,
 * exact on its own, and far cheaper per row than computing the key), so a collection scan costs about what
 * `doc->>'f' = $1` does. Where an index leads with the path the key test is the index condition and that
 * comparison would only be a per-row filter reading each match's document (a count then reads no document at
 * all: the heap is visited for visibility only), so it is left out.
 */
function compileArrayFreePath(parts: string[], pred: ElemPred, doc: string, ctx: Ctx): string {
  const path = pathSql(parts);
  if (isWholeArrayPred(pred)) return 'FALSE';
  const dotted = parts.join('.');
  const leads = ctx.facts?.leadsIndex?.(dotted) === true;
  // Before keyCond, which binds its own parameters.
  const row =
    leads && ctx.facts?.orderedBy === dotted ? rowRange(pred, `pb_pk(${doc}, ${path})`, ctx) : undefined;
  if (row !== undefined) return row;
  const keyTest = keyCond(pred, ctx);
  if (!keyTest) return valueCond(pred, `(${doc} #> ${path})`, ctx);
  const test = keyTest(`pb_pk(${doc}, ${path})`);
  if (leads) return test;
  if (pred.op === 'cmp' && pred.cmp === 'eq' && ['string', 'boolean'].includes(typeof pred.value)) {
    return `((${doc} #> ${path}) = ${bind(ctx, JSON.stringify(pred.value))}::jsonb AND ${test})`;
  }
  return test;
}

/**
 * When the filter is nothing but key tests on one path (an equality, $in, $exists or range, or several of them
 * joined by AND) with count entries (facts.keyEntries) and no array in its field: that path's entries' id and
 * the tests on `keySql`, the entry's key column (the key is pb_pk's, so the tests are the index condition's).
 * The path is then noted in facts.relied. Undefined for any other filter.
 */
export function entriesTest(
  node: FilterNode,
  keySql: string,
  params: unknown[],
  facts: ArrayFacts,
): { index: number; sql: string } | undefined {
  const preds = node.kind === 'path' ? [node] : node.kind === 'and' ? node.children : [];
  const first = preds[0];
  if (first?.kind !== 'path' || first.path === '_id') return undefined;
  const index = facts.keyEntries?.(first.path);
  if (index === undefined || !facts.arrayFree(first.parts[0]!)) return undefined;
  const keyed = (n: FilterNode) =>
    n.kind === 'path' &&
    n.path === first.path &&
    (n.pred.op === 'exists' || n.pred.op === 'in' || n.pred.op === 'cmp');
  if (!preds.every(keyed)) return undefined;
  pathArrayFree(first.parts, facts);
  const ctx: Ctx = { params, aliases: 0, facts };
  const tests = preds.map((n) => keyCond((n as { pred: ElemPred }).pred, ctx)!(keySql));
  if (params.length > MAX_FILTER_PARAMS)
    throw queryErrors.tooLarge('operand values in one filter', MAX_FILTER_PARAMS);
  return { index, sql: tests.join(' AND ') };
}

/** For key-based predicates, a builder of the test on a key expression; undefined for the others. */
function keyCond(pred: ElemPred, ctx: Ctx): ((k: string) => string) | undefined {
  if (pred.op === 'exists') return (k) => `${k} > '\\x05'::bytea`;
  if (pred.op === 'in') {
    const keys = new Map<string, Buffer>();
    for (const v of pred.values) {
      const key = encodeKey(v);
      keys.set(key.toString('hex'), key);
      if (v === null) keys.set(KEY.missing.toString('hex'), KEY.missing);
    }
    if (keys.size === 0) return () => 'FALSE';
    if (keys.size > IN_LIST_MAX) {
      // One array literal: PostgreSQL tests = ANY of a constant array through a hash table.
      const array = bind(ctx, `{${[...keys.keys()].map((hex) => `"\\\\x${hex}"`).join(',')}}`);
      return (k) => `${k} = ANY(${array}::bytea[])`;
    }
    const list = [...keys.values()].map((key) => bindKey(ctx, key)).join(', ');
    return (k) => `${k} IN (${list})`;
  }
  if (pred.op === 'cmp') return cmpCond(pred.cmp, pred.value, ctx);
  return undefined;
}

/**
 * A one-sided range on the path a statement walks in index order to a LIMIT, as a row comparison with the id
 * column: `(k, id) >= (v, '')` is `k >= v` (an id is never NULL nor empty), `(k, id) >= (v || 00, '')` is
 * `k > v`, `(k, id) < (v, '')` is `k < v`, `(k, id) < (v || 00, '')` is `k <= v`. The type bracket's other
 * bound is a constant of the code (a rank byte, or NaN's key). The answer is the plain range's; what changes
 * is the planner's estimate for a cached plan: a range with two bound values it does not know counts as 0.5 %
 * of the rows, which made the generic plan look dearer than replanning the statement every time, while a row
 * comparison counts as one inequality. The index of the path (its key, then id) takes it as its index
 * condition. Undefined for anything else (equalities, null, NaN, ranges with both sides given).
 */
function rowRange(pred: ElemPred, k: string, ctx: Ctx): string | undefined {
  if (pred.op !== 'cmp' || pred.cmp === 'eq') return undefined;
  const value = pred.value;
  if (value === null || (typeof value === 'number' && Number.isNaN(value))) return undefined;
  const key = encodeKey(value);
  const constant = (b: Buffer) => `'\\x${b.toString('hex')}'::bytea`;
  const past = (b: Buffer) => Buffer.concat([b, Buffer.from([0])]);
  if (pred.cmp === 'gt' || pred.cmp === 'gte') {
    const from = bindKey(ctx, pred.cmp === 'gt' ? past(key) : key);
    return `((${k}, id) >= (${from}, ''::text) AND ${k} < ${constant(rankUpperBound(key))})`;
  }
  const below = typeof value === 'number' || typeof value === 'bigint' ? NAN_KEY : key.subarray(0, 1);
  const to = bindKey(ctx, pred.cmp === 'lte' ? past(key) : key);
  return `(${k} > ${constant(below)} AND (${k}, id) < (${to}, ''::text))`;
}

function cmpCond(cmp: string, value: Value, ctx: Ctx): (k: string) => string {
  if (value === null) {
    return cmp === 'gt' || cmp === 'lt' ? () => 'FALSE' : (k) => `${k} IN ${MISSING_OR_NULL}`;
  }
  if (typeof value === 'number' && Number.isNaN(value)) {
    // NaN equals NaN, and no other order comparison with NaN holds (MongoDB's ComparisonMatchExpression).
    if (cmp === 'gt' || cmp === 'lt') return () => 'FALSE';
    const nan = bindKey(ctx, NAN_KEY);
    return (k) => `${k} = ${nan}`;
  }
  const key = encodeKey(value);
  const kp = bindKey(ctx, key);
  if (cmp === 'eq') return (k) => `${k} = ${kp}`;
  if (cmp === 'gt' || cmp === 'gte') {
    const hi = bindKey(ctx, rankUpperBound(key));
    return (k) => `(${k} ${cmp === 'gt' ? '>' : '>='} ${kp} AND ${k} < ${hi})`;
  }
  // Below: stay inside the type bracket, and above NaN for numbers.
  const lo = bindKey(
    ctx,
    typeof value === 'number' || typeof value === 'bigint' ? NAN_KEY : key.subarray(0, 1),
  );
  return (k) => `(${k} > ${lo} AND ${k} ${cmp === 'lt' ? '<' : '<='} ${kp})`;
}

/** Predicates on the stored value itself (v is a jsonb expression, SQL NULL when missing). */
function valueCond(pred: ElemPred, v: string, ctx: Ctx): string {
  switch (pred.op) {
    case 'bits':
      throw residualOnly();
    case 'type':
      return pred.types.length === 0
        ? 'FALSE'
        : `pb_type(${v}) IN (${pred.types.map((t) => `'${t}'`).join(', ')})`;
    case 'regex':
      return `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN (${v} #>> '{}') ~ ${bind(ctx, pred.regex.sql)} ELSE false END)`;
    case 'mod':
      return `coalesce(pb_mod_dividend(${v}) % ${bind(ctx, pred.divisor.toString())}::int8 = ${bind(ctx, pred.remainder.toString())}::int8, false)`;
    default:
      return wholeCond(pred, v, ctx);
  }
}

function wholeCond(pred: ElemPred, v: string, ctx: Ctx): string {
  if (pred.op === 'size') {
    return `(CASE WHEN jsonb_typeof(${v}) = 'array' THEN jsonb_array_length(${v}) = ${bind(ctx, pred.size)}::int ELSE false END)`;
  }
  if (pred.op !== 'elemMatchValue' && pred.op !== 'elemMatchDoc') return valueCond(pred, v, ctx);
  const e = alias(ctx, 'e');
  let test: string;
  if (pred.op === 'elemMatchValue') {
    test = pred.preds.length === 0 ? 'TRUE' : pred.preds.map((p) => elemCond(p, `${e}.x`, ctx)).join(' AND ');
  } else {
    const facts = ctx.facts;
    ctx.facts = undefined;
    const sub = compileNode(pred.filter, `pb_asdoc(${e}.x)`, ctx);
    ctx.facts = facts;
    test = `(CASE WHEN pb_isdoc(${e}.x) OR jsonb_typeof(${e}.x) = 'array' THEN ${sub} ELSE false END)`;
  }
  return `(CASE WHEN jsonb_typeof(${v}) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${v}) AS ${e}(x) WHERE ${test}) ELSE false END)`;
}

/** A predicate on one array element x itself, as inside $elemMatch on values (no further traversal). */
function elemCond(pred: ElemPred, x: string, ctx: Ctx): string {
  if (pred.op === 'not') {
    if (pred.preds.length === 0) return 'FALSE';
    return `(NOT (${pred.preds.map((p) => elemCond(p, x, ctx)).join(' AND ')}))`;
  }
  const keyTest = keyCond(pred, ctx);
  if (keyTest) return keyTest(`pb_enc(${x})`);
  return valueCond(pred, x, ctx);
}
