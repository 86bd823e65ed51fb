// Dotted update paths: validation, MongoDB's processing order, and walking a document to the field to change.

import { compareStrings } from './compare-values.js';
import { queryErrors } from './errors.js';
import { splitPath } from './field-path.js';
import { updateErrors } from './update-errors.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

/** MongoDB refuses to pad an array past this many new elements ("can't backfill"). */
const MAX_ARRAY_PADDING = 1_500_000;
/**
 * Nulls one update may add by padding, over all its paths. Each null takes at least 5 bytes of a stored
 * document, so no document of 16 MB holds more; without it a 4 MB $set of 300,000 paths like "aN.1400000"
 * would allocate hundreds of millions of nulls before the size check.
 */
const MAX_TOTAL_PADDING = 3_400_000;
// One budget at a time: applyUpdate resets it and runs synchronously to the end.
let paddingLeft = MAX_TOTAL_PADDING;

/** Starts the padding budget of one update or upsert seed. */
export function resetPaddingBudget(): void {
  paddingLeft = MAX_TOTAL_PADDING;
}

const DIGITS = /^\d+$/;

/**
 * Splits and checks a path given as a field of an update operator. Positional parts (`$`, `$[]`,
 * `$[<identifier>]`) are kept when `positional` says so (update-positional.ts checks them), else refused.
 */
export function parseUpdatePath(path: string, positional = false): string[] {
  const parts = splitPath(path);
  for (const part of parts) {
    if (part === '') throw queryErrors.badFieldPath(path, 'empty field name');
    if (part === '$' || (part.startsWith('$[') && part.endsWith(']'))) {
      if (positional) continue;
      throw updateErrors.positional(part, `the path '${path}' may not be dynamic here`);
    }
    if (part.startsWith('$'))
      throw queryErrors.badFieldPath(path, `field names may not start with $ ('${part}')`);
  }
  return parts;
}

/** Checks that a value written by an update holds no $-prefixed field names (MongoDB refuses to store them). */
export function checkStorable(v: Value, where: string): void {
  if (Array.isArray(v)) {
    for (const item of v) checkStorable(item, where);
  } else if (isDoc(v)) {
    for (const key of Object.keys(v)) {
      if (key.startsWith('$')) {
        throw updateErrors.badShape(
          `the dollar ($) prefixed field '${key}' in '${where}' is not valid for storage`,
        );
      }
      checkStorable(v[key]!, `${where}.${key}`);
    }
  }
}

function isArrayIndex(part: string): boolean {
  return DIGITS.test(part);
}

/**
 * MongoDB 5.0+ order of applying update paths: part by part, numeric names in numeric order, other names in
 * code point order. Paths of one update never contain one another, so this is the order of its update tree.
 */
export function comparePaths(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareParts(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareParts(a: string, b: string): number {
  if (isArrayIndex(a) && isArrayIndex(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    if (x !== y) return x < y ? -1 : 1;
  }
  return compareStrings(a, b);
}

export type Container = Doc | Value[];

/** Where a path leads in a document: to an existing value, to a gap that can be filled, or into a scalar. */
export type Location =
  | { kind: 'found'; parent: Container; key: string; value: Value }
  | { kind: 'missing'; parent: Container; key: string; rest: string[] }
  | { kind: 'blocked'; part: string; holder: Value; depth: number };

/** Walks `path` in `root`; arrays are entered only through numeric parts (no implicit traversal in updates). */
export function locate(root: Doc, path: string[]): Location {
  let cur: Container = root;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    if (Array.isArray(cur) && !isArrayIndex(part)) return { kind: 'blocked', part, holder: cur, depth: i };
    if (Array.isArray(cur)) checkIndex(part, path);
    const child = readChild(cur, part);
    if (child === undefined) return { kind: 'missing', parent: cur, key: part, rest: path.slice(i + 1) };
    if (i === path.length - 1) return { kind: 'found', parent: cur, key: part, value: child };
    if (!Array.isArray(child) && !isDoc(child))
      return { kind: 'blocked', part: path[i + 1]!, holder: child, depth: i + 1 };
    cur = child;
  }
  throw new Error('unreachable: empty update path');
}

/** An array index with leading zeros has no documented meaning, so it is refused rather than guessed. */
function checkIndex(part: string, path: string[]): void {
  if (part.length > 1 && part.startsWith('0')) {
    throw updateErrors.unsupported(`The array index '${part}' with leading zeros in '${path.join('.')}'`);
  }
}

export function readChild(container: Container, key: string): Value | undefined {
  if (Array.isArray(container)) {
    if (!isArrayIndex(key)) return undefined;
    return container[Number(key)];
  }
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

/** Writes an existing or new child; a new array index is reached by padding with nulls as MongoDB does. */
export function writeChild(container: Container, key: string, value: Value, fullPath: string): void {
  if (!Array.isArray(container)) {
    setField(container, key, value);
    return;
  }
  if (key.length > 1 && key.startsWith('0')) checkIndex(key, fullPath.split('.'));
  const index = Number(key);
  const padding = index - container.length;
  if (padding > MAX_ARRAY_PADDING) {
    throw updateErrors.badArgument(
      'update',
      fullPath,
      `cannot pad an array by more than ${MAX_ARRAY_PADDING} elements`,
    );
  }
  if (padding > 0) paddingLeft -= padding;
  if (paddingLeft < 0) {
    throw updateErrors.badArgument(
      'update',
      fullPath,
      `cannot pad arrays by more than ${MAX_TOTAL_PADDING} elements in one update`,
    );
  }
  while (container.length < index) container.push(null);
  container[index] = value;
}

/** Builds the value to place at the first missing part: objects all the way down, even for numeric parts. */
function nestValue(rest: string[], leaf: Value): Value {
  let value = leaf;
  for (let i = rest.length - 1; i >= 0; i--) {
    const wrapper: Doc = {};
    setField(wrapper, rest[i]!, value);
    value = wrapper;
  }
  return value;
}

/** Places `value` at a missing location (creating the rest of the path). */
export function fillMissing(
  loc: Extract<Location, { kind: 'missing' }>,
  value: Value,
  fullPath: string,
): void {
  writeChild(loc.parent, loc.key, nestValue(loc.rest, value), fullPath);
}

/** The error MongoDB gives when a path would have to go through a scalar or by name into an array. */
export function notViable(loc: Extract<Location, { kind: 'blocked' }>, fullPath: string): Error {
  return updateErrors.pathNotViable(loc.part, fullPath, describe(loc.holder));
}

function describe(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'of type array';
  if (v instanceof Date) return 'of type date';
  if (typeof v === 'bigint') return 'of type long';
  if (typeof v === 'object') return isDoc(v) ? 'of type object' : 'of type objectId';
  return `of type ${typeof v === 'number' ? 'number' : typeof v}`;
}

export function typeName(v: Value | undefined): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  return describe(v).replace(/^of type /, '');
}
