// Evaluates a FilterNode on an in-memory document with the same semantics as the SQL compiler.
// Built on compareValues and walkPath rather than on the key encoding, so it is an independent second oracle.
//
// Equality ($eq, $in, $all, and $or/$and of them) on a path that reaches many values is a hash lookup of
// equalityKey, and each path is walked once per document: n operands against an array of m elements cost
// O(n + m), not O(n × m) (issue 20: a $pull {$in} of 10,000 values on 10,000 elements took 6 s).
import { Decimal128, ObjectId } from 'bson';
import { compareValues, typeRank } from './compare-values.js';
import { truthy } from './expr/args.js';
import { evalExpr } from './expr/index.js';
import { type Cmp, type ElemPred, type FilterNode, isWholeArrayPred } from './filter.js';
import { matchesBits } from './filter-bits.js';
import { MISSING, type Reached, walkPath } from './path-walk.js';
import { type Program, programOf } from './regex-nfa.js';
import { runProgram, type StepBudget, stepBudgetOf } from './regex-vm.js';
import { equalityKey } from './value-identity.js';
import { type Doc, isDoc, type Value } from './values.js';

/** Below this many reached values or $in operands a linear scan is cheaper than hashing. */
const HASH_FROM = 16;

/** What one path reaches in the document being matched, walked once, with its equality keys when asked. */
interface Reach {
  values: Reached[];
  keys: Set<string> | undefined;
}
type ReachCache = Map<string, Reach>;

const inKeys = new WeakMap<ElemPred, Set<string>>();
const regexes = new WeakMap<ElemPred, { prog: Program; budget: StepBudget }>();

export function matchesFilter(node: FilterNode, doc: Doc): boolean {
  return matchNode(node, doc, new Map());
}

function matchNode(node: FilterNode, doc: Doc, cache: ReachCache): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'and':
      return node.children.every((c) => matchNode(c, doc, cache));
    case 'or':
      return node.children.some((c) => matchNode(c, doc, cache));
    case 'nor':
      return !node.children.some((c) => matchNode(c, doc, cache));
    case 'not':
      return !matchNode(node.child, doc, cache);
    case 'path':
      return matchPath(node.parts, node.pred, doc, cache);
    case 'expr': {
      const ctx = { root: doc, current: doc, vars: new Map(), now: node.now, budget: node.budget };
      return truthy(evalExpr(node.expr, ctx));
    }
  }
}

function matchPath(parts: string[], pred: ElemPred, doc: Doc, cache: ReachCache): boolean {
  const whole = isWholeArrayPred(pred);
  // Parts never contain NUL (parseFieldPath refuses it), so joining with it names the path unambiguously.
  const id = `${whole ? 'w' : 't'}${parts.join('\u0000')}`;
  let reach = cache.get(id);
  if (reach === undefined) {
    reach = { values: walkPath(doc, parts, whole ? 'whole' : 'traverse'), keys: undefined };
    cache.set(id, reach);
  }
  const hashed = hashedEquality(pred, reach);
  if (hashed !== undefined) return hashed;
  return reach.values.some((r) => matchesElement(pred, r));
}

/**
 * $eq and $in through hashes when there are many values on either side; undefined when a scan is cheaper.
 * A reached MISSING keys as null ('z'), which only a null operand asks for: null also matches missing.
 */
function hashedEquality(pred: ElemPred, reach: Reach): boolean | undefined {
  const many = reach.values.length >= HASH_FROM;
  if (pred.op === 'cmp' && pred.cmp === 'eq' && many) return reachedKeys(reach).has(equalityKey(pred.value));
  if (pred.op !== 'in' || (!many && pred.values.length < HASH_FROM)) return undefined;
  if (pred.values.length < HASH_FROM) {
    const keys = reachedKeys(reach);
    return pred.values.some((v) => keys.has(equalityKey(v)));
  }
  const wanted = operandKeys(pred);
  return reach.values.some((r) => wanted.has(reachedKey(r)));
}

function reachedKeys(reach: Reach): Set<string> {
  reach.keys ??= new Set(reach.values.map(reachedKey));
  return reach.keys;
}

/** The equality key of a reached value; missing keys as null, and no other marker equals any operand. */
function reachedKey(r: Reached): string {
  if (r === MISSING) return 'z';
  return typeof r === 'symbol' ? '' : equalityKey(r);
}

function operandKeys(pred: Extract<ElemPred, { op: 'in' }>): Set<string> {
  let keys = inKeys.get(pred);
  if (keys === undefined) {
    keys = new Set(pred.values.map(equalityKey));
    inKeys.set(pred, keys);
  }
  return keys;
}

/** MongoDB's matchesSingleElement: one reached element against one predicate. */
export function matchesElement(pred: ElemPred, r: Reached): boolean {
  switch (pred.op) {
    case 'cmp':
      return compareMatches(pred.cmp, r, pred.value);
    case 'in':
      if (pred.values.length >= HASH_FROM) return operandKeys(pred).has(reachedKey(r));
      return pred.values.some((v) => compareMatches('eq', r, v));
    case 'exists':
      return r !== MISSING;
    case 'type':
      return pred.types.includes(typeName(r));
    case 'regex':
      return typeof r === 'string' && testRegex(pred, r);
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
        r.some((e) => (isDoc(e) || Array.isArray(e)) && matchNode(pred.filter, asDoc(e), new Map()))
      );
    case 'not':
      return !pred.preds.every((p) => matchesElement(p, r));
    case 'bits':
      return matchesBits(pred, r);
  }
}

/**
 * The linear-time matcher, never V8's backtracking RegExp (issue 20: `.*x` over 100,000 characters took 12 s).
 * The step budget is the one shared by the pipeline or update the predicate was parsed in (regex-vm.ts).
 */
function testRegex(pred: Extract<ElemPred, { op: 'regex' }>, s: string): boolean {
  let entry = regexes.get(pred);
  if (entry === undefined) {
    entry = { prog: programOf(pred.regex), budget: stepBudgetOf(pred.regex) };
    regexes.set(pred, entry);
  }
  return runProgram(entry.prog, s, entry.budget);
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
function typeName(r: Reached): string {
  if (r === MISSING || typeof r === 'symbol') return 'missing';
  if (r === null) return 'null';
  if (typeof r === 'number') return Number.isInteger(r) && r >= -(2 ** 31) && r < 2 ** 31 ? 'int' : 'double';
  if (typeof r === 'bigint') return 'long';
  if (typeof r === 'string') return 'string';
  if (typeof r === 'boolean') return 'bool';
  if (r instanceof Date) return 'date';
  if (r instanceof ObjectId) return 'objectId';
  if (r instanceof Decimal128) return 'decimal';
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
