// The document an upsert starts from: the equality conditions of its filter, as MongoDB extracts them.
import { compareStrings } from './compare-values.js';
import { parseFilter } from './filter.js';
import { updateErrors } from './update-errors.js';
import type { UpdateSpec } from './update-parse.js';
import { checkStorable, fillMissing, locate } from './update-paths.js';
import { type Doc, fromWire } from './values.js';

/**
 * Builds the seed of an upserted document from the filter as sent (extended JSON, as for parseFilter): every
 * top-level `path: value` and `path: {$eq: value}` (also one-element $in and $all, and inside $and or a
 * one-clause $or, which MongoDB's query normalisation reduces to equalities). A replacement upsert takes
 * only the _id. Apply the update to the seed with `isInsert: true`.
 */
export function seedUpsert(filter: unknown, spec: UpdateSpec): Doc {
  parseFilter(filter);
  const found: Equality[] = [];
  if (isPlainObject(filter)) collectEqualities(filter, found);
  const equalities = spec.kind === 'replace' ? onlyId(found) : found;
  checkAmbiguity(equalities);
  const seed: Doc = {};
  const ordered = equalities.slice().sort((a, b) => compareStrings(a[0], b[0]));
  for (const [path, raw] of ordered) {
    const value = fromWire(raw, { allowDollarKeys: true }, path);
    checkStorable(value, path);
    const loc = locate(seed, path.split('.'));
    if (loc.kind === 'missing') fillMissing(loc, value, path);
  }
  return seed;
}

/** Equalities are collected as sent, and converted only once chosen (operands like $regex never are). */
type Equality = [path: string, raw: unknown];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object whose first key is an extended JSON tag ($oid, $date...) is a value, not an operator object. */
function isOperatorObject(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  const first = Object.keys(v)[0] ?? '';
  return first.startsWith('$') && !VALUE_TAGS.has(first);
}

const VALUE_TAGS = new Set(['$oid', '$date', '$numberLong', '$numberInt', '$numberDouble', '$numberDecimal']);

function collectEqualities(filter: Record<string, unknown>, out: Equality[]): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) collectEqualities(clause, out);
    } else if (key === '$or' && Array.isArray(value) && value.length === 1 && isPlainObject(value[0])) {
      collectEqualities(value[0], out);
    } else if (!key.startsWith('$')) {
      collectFieldEqualities(key, value, out);
    }
  }
}

function collectFieldEqualities(path: string, cond: unknown, out: Equality[]): void {
  if (!isOperatorObject(cond)) {
    out.push([path, cond]);
    return;
  }
  if (Object.hasOwn(cond, '$eq')) out.push([path, cond.$eq]);
  const inList = cond.$in;
  if (Array.isArray(inList) && inList.length === 1 && !isOperatorObject(inList[0]))
    out.push([path, inList[0]]);
  const all = cond.$all;
  if (Array.isArray(all)) {
    for (const item of all) if (!isOperatorObject(item)) out.push([path, item]);
  }
}

function onlyId(equalities: Equality[]): Equality[] {
  const under = equalities.filter(([path]) => path.startsWith('_id.'));
  if (under.length > 0)
    throw updateErrors.upsertAmbiguous(`the _id is given only in part ('${under[0]![0]}')`);
  return equalities.filter(([path]) => path === '_id');
}

/**
 * MongoDB refuses a path matched twice, or a path and another inside it. Sorted part by part, a path is
 * directly followed by an equal one or one inside it whenever there is any, so neighbours suffice.
 */
function checkAmbiguity(equalities: Equality[]): void {
  const paths = equalities.map(([path]) => path.split('.')).sort(compareParts);
  for (let i = 1; i < paths.length; i++) {
    const a = paths[i - 1]!;
    const b = paths[i]!;
    if (!a.every((part, k) => part === b[k])) continue;
    if (a.length === b.length) throw updateErrors.upsertAmbiguous(`path '${a.join('.')}' is matched twice`);
    throw updateErrors.upsertAmbiguous(`both paths '${a.join('.')}' and '${b.join('.')}' are matched`);
  }
}

function compareParts(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
