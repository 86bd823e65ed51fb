// Evaluates a FilterNode on an in-memory document with the same semantics as the SQL compiler.
// Built on compareValues and walkPath rather than on the key encoding, so it is an independent second oracle.
import { ObjectId } from 'bson';
import { compareValues, typeRank } from './compare-values.js';
import { type Cmp, type ElemPred, type FilterNode, isWholeArrayPred } from './filter.js';
import { MISSING, type Reached, walkPath } from './path-walk.js';
import { type Doc, isDoc, type Value } from './values.js';

export function matchesFilter(node: FilterNode, doc: Doc): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'and':
      return node.children.every((c) => matchesFilter(c, doc));
    case 'or':
      return node.children.some((c) => matchesFilter(c, doc));
    case 'nor':
      return !node.children.some((c) => matchesFilter(c, doc));
    case 'not':
      return !matchesFilter(node.child, doc);
    case 'path': {
      const reached = walkPath(doc, node.parts, isWholeArrayPred(node.pred) ? 'whole' : 'traverse');
      return reached.some((r) => matchesElement(node.pred, r));
    }
  }
}

/** MongoDB's matchesSingleElement: one reached element against one predicate. */
export function matchesElement(pred: ElemPred, r: Reached): boolean {
  switch (pred.op) {
    case 'cmp':
      return compareMatches(pred.cmp, r, pred.value);
    case 'in':
      return pred.values.some((v) => compareMatches('eq', r, v));
    case 'exists':
      return r !== MISSING;
    case 'type':
      return pred.types.includes(typeName(r));
    case 'regex':
      return typeof r === 'string' && new RegExp(pred.regex.js, 'u').test(r);
    case 'mod': {
      const dividend = modDividend(r);
      return dividend !== undefined && dividend % pred.divisor === pred.remainder;
    }
    case 'size':
      return Array.isArray(r) && r.length === pred.size;
    case 'elemMatchValue':
      return Array.isArray(r) && r.some((e) => pred.preds.every((p) => matchesElement(p, e)));
    case 'elemMatchDoc':
      return (
        Array.isArray(r) &&
        r.some((e) => (isDoc(e) || Array.isArray(e)) && matchesFilter(pred.filter, asDoc(e)))
      );
    case 'not':
      return !pred.preds.every((p) => matchesElement(p, r));
  }
}

/** Type-bracketed comparison: null also matches missing; NaN only equals NaN. */
function compareMatches(cmp: Cmp, r: Reached, value: Value): boolean {
  if (value === null) return (r === MISSING || r === null) && cmp !== 'gt' && cmp !== 'lt';
  if (r === MISSING || typeof r === 'symbol') return false;
  if (typeRank(r) !== typeRank(value)) return false;
  const nanR = typeof r === 'number' && Number.isNaN(r);
  const nanV = typeof value === 'number' && Number.isNaN(value);
  if (cmp !== 'eq' && (nanR || nanV)) return cmp !== 'gt' && cmp !== 'lt' && nanR && nanV;
  const c = compareValues(r, value);
  switch (cmp) {
    case 'eq':
      return c === 0;
    case 'gt':
      return c > 0;
    case 'gte':
      return c >= 0;
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
  }
}

/** The $type name of a reached value; a number is 'int' when an integer in int32 range, else 'double'. */
export function typeName(r: Reached): string {
  if (r === MISSING || typeof r === 'symbol') return 'missing';
  if (r === null) return 'null';
  if (typeof r === 'number') return Number.isInteger(r) && r >= -(2 ** 31) && r < 2 ** 31 ? 'int' : 'double';
  if (typeof r === 'bigint') return 'long';
  if (typeof r === 'string') return 'string';
  if (typeof r === 'boolean') return 'bool';
  if (r instanceof Date) return 'date';
  if (r instanceof ObjectId) return 'objectId';
  return Array.isArray(r) ? 'array' : 'object';
}

function modDividend(r: Reached): bigint | undefined {
  if (typeof r === 'bigint') return r;
  if (typeof r !== 'number' || !Number.isFinite(r)) return undefined;
  const t = Math.trunc(r);
  return t >= -(2 ** 63) && t < 2 ** 63 ? BigInt(t) : undefined;
}

/** An array element seen as a document with keys "0", "1", ... (how $elemMatch treats it). */
function asDoc(e: Value): Doc {
  if (!Array.isArray(e)) return e as Doc;
  const out: Doc = {};
  e.forEach((item, i) => {
    out[String(i)] = item;
  });
  return out;
}
