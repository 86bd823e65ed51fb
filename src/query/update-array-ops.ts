// The array update operators $push (with $each/$position/$sort/$slice), $addToSet, $pop and $pull.
import { compareValues, valuesEqual } from './compare-values.js';
import { matchesFilter } from './filter.js';
import { updateErrors } from './update-errors.js';
import { PULL_FIELD, type PullArg, type PushArg, type PushSort, type UpdateAction } from './update-parse.js';
import { fillMissing, type Location, locate, notViable, typeName, writeChild } from './update-paths.js';
import { cloneValue, equalityKey, identical } from './value-identity.js';
import { type Doc, isDoc, type Value } from './values.js';

type ArrayAction = Extract<UpdateAction, { op: '$push' | '$addToSet' | '$pop' | '$pull' }>;
type Found = Extract<Location, { kind: 'found' }>;

export function applyArrayAction(root: Doc, action: ArrayAction): void {
  const loc = locate(root, action.path);
  const creates = action.op === '$push' || action.op === '$addToSet';
  if (loc.kind === 'blocked') {
    // $pop and $pull leave a path they cannot reach alone; $push and $addToSet would have to create it.
    if (creates) throw notViable(loc, action.field);
    return;
  }
  if (loc.kind === 'missing') {
    if (action.op === '$push') fillMissing(loc, pushInto([], action.arg), action.field);
    if (action.op === '$addToSet') fillMissing(loc, addUnique([], action.values), action.field);
    return;
  }
  if (!Array.isArray(loc.value)) throw notAnArray(action.op, action.field, loc.value);
  const next = nextArray(loc.value, action);
  if (!identical(loc.value, next)) writeChild(loc.parent, loc.key, next, action.field);
}

function nextArray(current: Value[], action: ArrayAction): Value[] {
  switch (action.op) {
    case '$push':
      return pushInto(current, action.arg);
    case '$addToSet':
      return addUnique(current, action.values);
    case '$pop':
      return action.first ? current.slice(1) : current.slice(0, -1);
    default:
      return current.filter((item) => !pullMatches(action.arg, item));
  }
}

function notAnArray(op: string, field: string, value: Found['value']): Error {
  return updateErrors.typeMismatch(op, field, `the field must be an array but is of type ${typeName(value)}`);
}

/** $each inserted at $position (negative counts from the end), then $sort, then $slice, as MongoDB orders them. */
function pushInto(current: Value[], arg: PushArg): Value[] {
  const at = insertionIndex(current.length, arg.position);
  // Concatenated, never spliced with spread arguments: $each may hold more values than a call has room for.
  const out = current.slice(0, at).concat(arg.each.map(cloneValue), current.slice(at));
  if (arg.sort !== undefined) sortPushed(out, arg.sort);
  if (arg.slice === undefined) return out;
  return arg.slice >= 0 ? out.slice(0, arg.slice) : out.slice(Math.max(0, out.length + arg.slice));
}

function insertionIndex(length: number, position: number | undefined): number {
  if (position === undefined) return length;
  if (position < 0) return Math.max(0, length + position);
  return Math.min(position, length);
}

/**
 * {$sort: 1|-1} compares whole elements; {$sort: {path: dir}} compares the values at those paths, a
 * non-document element or a missing path counting as null.
 */
function sortPushed(items: Value[], sort: PushSort): void {
  if (sort.kind === 'value') {
    items.sort((a, b) => sort.dir * compareValues(a, b));
    return;
  }
  items.sort((a, b) => {
    for (const key of sort.keys) {
      const c = compareValues(sortKey(a, key.path), sortKey(b, key.path));
      if (c !== 0) return key.dir * c;
    }
    return 0;
  });
}

function sortKey(item: Value, path: string): Value {
  return isDoc(item) ? (extractAtPath(item, path) ?? null) : null;
}

/** MongoDB's dotted extraction for $push $sort: the whole dotted name first, then part by part. */
function extractAtPath(container: Doc | Value[], path: string): Value | undefined {
  const direct = literalChild(container, path);
  if (direct !== undefined) return direct;
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  const sub = literalChild(container, path.slice(0, dot));
  if (!isDoc(sub) && !Array.isArray(sub)) return undefined;
  return extractAtPath(sub, path.slice(dot + 1));
}

function literalChild(container: Doc | Value[], key: string): Value | undefined {
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  return /^(0|[1-9]\d*)$/.test(key) ? container[Number(key)] : undefined;
}

/**
 * Appends each value not already present (MongoDB equality: numbers by value, documents field by field).
 * Presence is a hash of equalityKey, so n values into an array of m cost O(n + m), not O(n × m).
 */
function addUnique(current: Value[], values: Value[]): Value[] {
  const out = current.slice();
  const present = new Set(current.map(equalityKey));
  for (const v of values) {
    const key = equalityKey(v);
    if (present.has(key)) continue;
    present.add(key);
    out.push(cloneValue(v));
  }
  return out;
}

function pullMatches(arg: PullArg, item: Value): boolean {
  switch (arg.kind) {
    case 'equal':
      return valuesEqual(item, arg.value);
    case 'document':
      return isDoc(item) && matchesFilter(arg.node, item);
    default:
      return matchesFilter(arg.node, { [PULL_FIELD]: item });
  }
}
