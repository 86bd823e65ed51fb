// The projection operators of find (MongoDB 4.4+): $slice, $elemMatch and the positional `field.$`, parsed
// and applied; projection.ts places them in its inclusion or exclusion tree.
import { type FilterNode, parseFilter } from './filter.js';
import { elemMatchIndex } from './match-position.js';
import { pipelineErrors } from './pipeline-errors.js';
import { cloneValue } from './value-identity.js';
import { type Doc, isDoc, toWire, type Value } from './values.js';

export type SliceNode = { kind: 'slice'; skip: number | undefined; limit: number };
export type ElemMatchNode = { kind: 'elemMatch'; field: string; filter: FilterNode };
export type PositionalNode = { kind: 'positional' };

const bad = (op: string, why: string) => pipelineErrors.badProjection(`${op}: ${why}`);

function integer(v: Value | undefined, what: string): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw bad('$slice', `${what} must be an integer`);
  return n;
}

/** `{$slice: n}` (first n, or last -n) or `{$slice: [skip, limit]}` (skip from the end when negative). */
export function parseSlice(arg: Value | undefined): SliceNode {
  if (Array.isArray(arg)) {
    if (arg.length !== 2) throw bad('$slice', 'expected a number or a [skip, limit] array');
    const limit = integer(arg[1], 'the limit');
    if (limit <= 0) throw bad('$slice', 'the limit must be positive');
    return { kind: 'slice', skip: integer(arg[0], 'the skip'), limit };
  }
  if (typeof arg !== 'number' && typeof arg !== 'bigint')
    throw bad('$slice', 'expected a number or a [skip, limit] array');
  return { kind: 'slice', skip: undefined, limit: integer(arg, 'the count') };
}

export function sliceValue(v: Value, s: SliceNode): Value {
  if (!Array.isArray(v)) return cloneValue(v);
  const n = v.length;
  let start: number;
  let end: number;
  if (s.skip === undefined) {
    start = s.limit >= 0 ? 0 : Math.max(0, n + s.limit);
    end = s.limit >= 0 ? Math.min(n, s.limit) : n;
  } else {
    start = s.skip >= 0 ? Math.min(n, s.skip) : Math.max(0, n + s.skip);
    end = Math.min(n, start + s.limit);
  }
  return v.slice(start, end).map(cloneValue);
}

/** `{field: {$elemMatch: query}}` on a top-level field: the query as `{field: {$elemMatch: query}}` parses it. */
export function parseElemMatch(field: string[], arg: Value | undefined): ElemMatchNode {
  if (field.length !== 1) throw bad('$elemMatch', 'cannot be used on a nested field');
  if (!isDoc(arg)) throw bad('$elemMatch', 'expected a query document');
  const filter = parseFilter({ [field[0]!]: { $elemMatch: toWire(arg) } });
  return { kind: 'elemMatch', field: field[0]!, filter };
}

/** The first element the $elemMatch matches, as a one-element array; undefined (field left out) when none. */
export function elemMatchValue(doc: Doc, node: ElemMatchNode): Value | undefined {
  const v = Object.hasOwn(doc, node.field) ? doc[node.field] : undefined;
  if (!Array.isArray(v) || node.filter.kind !== 'path') return undefined;
  const i = elemMatchIndex(node.filter.pred, v);
  return i === undefined ? undefined : [cloneValue(v[i]!)];
}

/**
 * `field.$`: the array element at the position the query recorded (match-position.ts). MongoDB refuses a
 * query that records none, and a position past the array's end.
 */
export function positionalValue(v: Value, position: number | undefined): Value {
  if (position === undefined)
    throw bad("'.$'", 'the positional operator requires a corresponding array field in the query');
  if (!Array.isArray(v)) return cloneValue(v);
  if (position >= v.length) throw bad("'.$'", 'positional operator element mismatch');
  return [cloneValue(v[position]!)];
}
