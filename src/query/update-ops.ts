// Applies one update action to a (private, mutable) copy of a document, with MongoDB's rules per operator.
import { compareValues } from './compare-values.js';
import { addNums, isNum, mulNums, zeroLike } from './update-arith.js';
import { applyArrayAction } from './update-array-ops.js';
import { updateErrors } from './update-errors.js';
import type { BitOp, UpdateAction } from './update-parse.js';
import {
  type Container,
  fillMissing,
  type Location,
  locate,
  notViable,
  readChild,
  typeName,
  writeChild,
} from './update-paths.js';
import { cloneValue, identical } from './value-identity.js';
import { type Doc, isDoc, type Value } from './values.js';

export interface ApplyContext {
  now: Date;
  isInsert: boolean;
  /** The array position a positional `$` stands for (update.ts positionFor); undefined: none matched. */
  position?: number | undefined;
}

type Found = Extract<Location, { kind: 'found' }>;

export function applyAction(root: Doc, action: UpdateAction, ctx: ApplyContext): void {
  switch (action.op) {
    case '$setOnInsert':
      if (ctx.isInsert) writeValue(root, action.path, action.field, () => cloneValue(action.value));
      return;
    case '$set':
      writeValue(root, action.path, action.field, () => cloneValue(action.value));
      return;
    case '$currentDate':
      writeValue(root, action.path, action.field, () => new Date(ctx.now.getTime()));
      return;
    case '$min':
    case '$max':
      applyMinMax(root, action.path, action.field, action.op, action.value);
      return;
    case '$inc':
    case '$mul':
      applyArithmetic(root, action.path, action.field, action.op, action.value);
      return;
    case '$bit':
      applyBit(root, action.path, action.field, action.ops);
      return;
    case '$unset':
      applyUnset(root, action.path);
      return;
    case '$rename':
      applyRename(root, action.from, action.fromField, action.path, action.field);
      return;
    default:
      applyArrayAction(root, action);
  }
}

/** $set and friends: replace an existing value or create the path; going through a scalar is an error. */
function writeValue(root: Doc, path: string[], field: string, make: (old: Value | undefined) => Value): void {
  const loc = locate(root, path);
  if (loc.kind === 'blocked') throw notViable(loc, field);
  if (loc.kind === 'missing') fillMissing(loc, make(undefined), field);
  else replaceFound(loc, make(loc.value), field);
}

function replaceFound(loc: Found, value: Value, field: string): void {
  if (!identical(loc.value, value)) writeChild(loc.parent, loc.key, value, field);
}

function applyMinMax(root: Doc, path: string[], field: string, op: '$min' | '$max', value: Value): void {
  const loc = locate(root, path);
  if (loc.kind === 'blocked') throw notViable(loc, field);
  if (loc.kind === 'missing') {
    fillMissing(loc, cloneValue(value), field);
    return;
  }
  const c = compareValues(value, loc.value);
  if (op === '$min' ? c < 0 : c > 0) writeChild(loc.parent, loc.key, cloneValue(value), field);
}

function applyArithmetic(
  root: Doc,
  path: string[],
  field: string,
  op: '$inc' | '$mul',
  by: number | bigint,
): void {
  const loc = locate(root, path);
  if (loc.kind === 'blocked') throw notViable(loc, field);
  if (loc.kind === 'missing') {
    fillMissing(loc, op === '$inc' ? by : zeroLike(by), field);
    return;
  }
  const old = loc.value;
  if (!isNum(old))
    throw updateErrors.typeMismatch(op, field, `the field holds a non-numeric value (${typeName(old)})`);
  const result = op === '$inc' ? addNums(old, by) : mulNums(old, by);
  if (result === null) throw updateErrors.overflow(op, field);
  replaceFound(loc, result, field);
}

/**
 * $bit: a missing field counts as 0 (of the first operand's type); an existing one must be an int or a long. Two
 * ints give an int (32-bit arithmetic); a long on either side gives a long (64-bit, wrapping as MongoDB's does).
 */
function applyBit(root: Doc, path: string[], field: string, ops: BitOp[]): void {
  const loc = locate(root, path);
  if (loc.kind === 'blocked') throw notViable(loc, field);
  let acc: number | bigint;
  if (loc.kind === 'missing') acc = typeof ops[0]!.value === 'bigint' ? 0n : 0;
  else {
    const old = loc.value;
    if (!(typeof old === 'bigint' || (typeof old === 'number' && Number.isInteger(old) && old === (old | 0))))
      throw updateErrors.typeMismatch(
        '$bit',
        field,
        `the field holds a non-integral value (${typeName(old)})`,
      );
    acc = old;
  }
  for (const { kind, value } of ops) acc = bitOp(kind, acc, value);
  if (loc.kind === 'missing') fillMissing(loc, acc, field);
  else replaceFound(loc, acc, field);
}

function bitOp(kind: BitOp['kind'], a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    if (kind === 'and') return a & b;
    return kind === 'or' ? a | b : a ^ b;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return BigInt.asIntN(64, kind === 'and' ? x & y : kind === 'or' ? x | y : x ^ y);
}

/** $unset removes a field, or sets an array element to null; a missing or unreachable path is a no-op. */
function applyUnset(root: Doc, path: string[]): void {
  const loc = locate(root, path);
  if (loc.kind !== 'found') return;
  if (Array.isArray(loc.parent)) loc.parent[Number(loc.key)] = null;
  else delete loc.parent[loc.key];
}

/**
 * $rename moves a value: neither path may run through an array; a missing source is a no-op. MongoDB applies
 * it at the destination's place in the update order, setting the destination and then removing the source.
 */
function applyRename(root: Doc, from: string[], fromField: string, to: string[], toField: string): void {
  const source = walkNoArrays(root, from, fromField, 'source');
  if (source === undefined) return;
  const value = readChild(source, from[from.length - 1]!);
  if (value === undefined) return;
  walkNoArrays(root, to, toField, 'destination');
  const dest = locate(root, to);
  if (dest.kind === 'blocked') throw notViable(dest, toField);
  if (dest.kind === 'missing') fillMissing(dest, value, toField);
  else writeChild(dest.parent, dest.key, value, toField);
  delete (source as Doc)[from[from.length - 1]!];
}

/** The object holding the last part of `path`, or undefined when the path stops early or meets a scalar. */
function walkNoArrays(
  root: Doc,
  path: string[],
  field: string,
  role: 'source' | 'destination',
): Doc | undefined {
  let cur: Container = root;
  for (let i = 0; i < path.length; i++) {
    if (Array.isArray(cur)) {
      throw updateErrors.typeMismatch('$rename', field, `the ${role} field cannot be an array element`);
    }
    if (i === path.length - 1) return cur;
    const child = readChild(cur, path[i]!);
    if (child === undefined || (!isDoc(child) && !Array.isArray(child))) return undefined;
    cur = child;
  }
  return undefined;
}
