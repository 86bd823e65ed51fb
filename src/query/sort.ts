// Sort specifications: parsed, compiled to an ORDER BY list in MongoDB's order, and compared in JS.
//
// The key of a document for one sort field is the smallest (ascending) or largest (descending) value the path
// reaches (arrays contribute their elements, as in MongoDB); a missing field sorts as null and an empty array
// below null. Ties are left in no particular order: add a final key (for example the id column) when a
// stable order is needed.

import { compareValues } from './compare-values.js';
import { queryErrors } from './errors.js';
import { parseFieldPath, pathSql } from './field-path.js';
import { type ArrayFacts, pathArrayFree } from './filter-sql.js';
import { encodeKey, KEY } from './key-encoding.js';
import { EMPTY_ARRAY, MISSING, type Reached, walkPath } from './path-walk.js';
import type { Doc } from './values.js';

export interface SortField {
  path: string;
  parts: string[];
  dir: 1 | -1;
}
export type SortSpec = SortField[];

const MAX_SORT_FIELDS = 32;

export function parseSort(sort: unknown): SortSpec {
  if (sort === undefined || sort === null) return [];
  if (typeof sort !== 'object' || Array.isArray(sort)) throw queryErrors.badSort('expected an object');
  const entries = Object.entries(sort as Record<string, unknown>);
  if (entries.length > MAX_SORT_FIELDS) throw queryErrors.badSort(`at most ${MAX_SORT_FIELDS} fields`);
  return entries.map(([path, dir]) => {
    if (dir !== 1 && dir !== -1) throw queryErrors.badSort(`direction of "${path}" must be 1 or -1`);
    return { path, parts: parseFieldPath(path), dir };
  });
}

/**
 * The ORDER BY list (without the keywords); '' for an empty spec. params is unused (no operands). A field
 * whose path meets no array in the collection (facts) sorts by pb_pk, the expression its index holds, so the
 * index gives the order and a limit stops the scan early: without arrays the sort key is the value's key,
 * and pb_pk's missing (05) below null (10) is an order among ties (MongoDB sorts missing as null). Only the
 * last field may: on an earlier one, missing and null must tie so that the next field decides.
 */
export function compileSort(spec: SortSpec, docSql: string, _params?: unknown[], facts?: ArrayFacts): string {
  return spec
    .map((f, i) => {
      const path = pathSql(f.parts);
      const desc = f.dir === 1 ? '' : ' DESC';
      if (i === spec.length - 1 && pathArrayFree(f.parts, facts)) return `pb_pk(${docSql}, ${path})${desc}`;
      return f.dir === 1 ? `pb_sk_asc(${docSql}, ${path})` : `pb_sk_desc(${docSql}, ${path}) DESC`;
    })
    .join(', ');
}

/**
 * The sort key of a document for one field, the same bytes pb_sk_asc / pb_sk_desc compute. The extreme value
 * is chosen with compareValues (the order of the keys) and only it is encoded: encoding every element of a
 * million-element array took about a second.
 */
function sortKey(doc: Doc, parts: string[], dir: 1 | -1): Buffer {
  let best: Reached | undefined;
  for (const r of walkPath(doc, parts, 'sort')) {
    if (best === undefined || compareReached(r, best) * dir < 0) best = r;
  }
  if (best === undefined || best === MISSING) return KEY.null;
  return best === EMPTY_ARRAY ? KEY.emptyArray : encodeKey(best);
}

/** Key order of reached values: an empty array below everything, missing as null. */
function compareReached(a: Reached, b: Reached): number {
  if (a === EMPTY_ARRAY || b === EMPTY_ARRAY) return a === b ? 0 : a === EMPTY_ARRAY ? -1 : 1;
  return compareValues(a === MISSING ? null : a, b === MISSING ? null : b);
}

export function compareBySort(spec: SortSpec): (a: Doc, b: Doc) => number {
  return (a, b) => compareSortKeys(spec, sortKeys(spec, a), sortKeys(spec, b));
}

/**
 * A document's keys for every field of the spec. Sorting n documents computes them once each and compares
 * the buffers, instead of walking every document's arrays in each of the n log n comparisons.
 */
export function sortKeys(spec: SortSpec, doc: Doc): Buffer[] {
  return spec.map((f) => sortKey(doc, f.parts, f.dir));
}

export function compareSortKeys(spec: SortSpec, a: Buffer[], b: Buffer[]): number {
  for (let i = 0; i < spec.length; i++) {
    const c = Buffer.compare(a[i]!, b[i]!);
    if (c !== 0) return c * spec[i]!.dir;
  }
  return 0;
}
