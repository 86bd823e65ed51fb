// The accumulators of $group, $bucket and $bucketAuto: $sum $avg $min $max $first $last $push $addToSet $count
// $mergeObjects $stdDevPop $stdDevSamp. Each output field folds the values of its expression over the documents
// of one group; arrays and merged documents are bounded in bytes as well as in values.
import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { ConstantTotal, NumericTotal } from './aggregate-sum.js';
import { compareValues } from './compare-values.js';
import { isDecimal } from './decimal.js';
import { queryErrors } from './errors.js';
import { pipelineErrors } from './pipeline-errors.js';
import { equalityKey } from './value-identity.js';
import { MAX_DOCUMENT_BYTES, valueBytes } from './value-size.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

const ACCUMULATORS = [
  '$sum',
  '$avg',
  '$min',
  '$max',
  '$first',
  '$last',
  '$push',
  '$addToSet',
  '$count',
  '$mergeObjects',
  '$stdDevPop',
  '$stdDevSamp',
] as const;
type AccumulatorOp = (typeof ACCUMULATORS)[number];

export interface AccumulatorField {
  name: string;
  op: AccumulatorOp;
  expr: Expr;
}

/** Bytes all the arrays and merged documents of one stage may hold (MongoDB's $group memory limit is 100 MB). */
export const MAX_GROUP_BYTES = 64 * 1024 * 1024;

/** `{name: {$op: expression}, ...}` of $group (without its _id), $bucket's and $bucketAuto's `output`. */
export function parseAccumulators(spec: Doc, stage: string): AccumulatorField[] {
  const bad = (why: string) => pipelineErrors.badStage(stage, why);
  const fields: AccumulatorField[] = [];
  for (const name of Object.keys(spec)) {
    if (name.includes('.') || name.startsWith('$') || name === '')
      throw bad(`the field name '${name}' cannot be empty, contain '.' or start with '$'`);
    const acc = spec[name]!;
    const ops = isDoc(acc) ? Object.keys(acc) : [];
    if (ops.length !== 1 || !ops[0]!.startsWith('$'))
      throw bad(`the field '${name}' must be an accumulator object`);
    const op = ops[0]!;
    if (!(ACCUMULATORS as readonly string[]).includes(op)) throw pipelineErrors.unknownAccumulator(op);
    const arg = (acc as Doc)[op]!;
    if (Array.isArray(arg)) throw bad(`the ${op} accumulator is a unary operator`);
    if (op === '$count') {
      if (!isDoc(arg) || Object.keys(arg).length > 0)
        throw bad('the $count accumulator takes no argument: write {$count: {}}');
      fields.push({ name, op, expr: { kind: 'const', value: 1 } });
      continue;
    }
    fields.push({ name, op: op as AccumulatorOp, expr: parseExpression(arg, stage) });
  }
  return fields;
}

type State =
  | { op: '$sum' | '$avg'; total: NumericTotal }
  | { op: '$sumConstant'; total: ConstantTotal }
  | { op: '$min' | '$max' | '$last'; value: Value | undefined }
  | { op: '$first'; seen: boolean; value: Value | undefined }
  | { op: '$push'; items: Value[]; bytes: number }
  | { op: '$addToSet'; keys: Set<string>; items: Value[]; bytes: number }
  | { op: '$mergeObjects'; merged: Doc; bytes: number }
  | { op: '$stdDevPop' | '$stdDevSamp'; count: number; mean: number; m2: number };

/** The states of one group's output fields. */
export class AccumulatorStates {
  private readonly states: State[];

  constructor(
    private readonly fields: AccumulatorField[],
    private readonly stage: string,
    /** Bytes held by every group of the stage. */
    private readonly budget: { bytes: number },
  ) {
    this.states = fields.map(initialState);
  }

  /** Folds one document in; returns how many values the states now hold in addition. */
  add(doc: Doc, now: Date): number {
    let held = 0;
    for (let i = 0; i < this.fields.length; i++) {
      const field = this.fields[i]!;
      const state = this.states[i]!;
      const v = state.op === '$sumConstant' ? undefined : evaluate(field.expr, doc, now);
      const added = accumulate(state, v, field);
      held += added;
      if (added > 0 && 'bytes' in state) this.checkBytes(state, v, field);
    }
    return held;
  }

  finish(out: Doc): void {
    this.fields.forEach((field, i) => {
      setField(out, field.name, finalValue(this.states[i]!));
    });
  }

  private checkBytes(
    state: Extract<State, { bytes: number }>,
    v: Value | undefined,
    field: AccumulatorField,
  ) {
    if (v === undefined || v === null) return;
    const n = valueBytes(v);
    state.bytes += n;
    this.budget.bytes += n;
    if (state.bytes > MAX_DOCUMENT_BYTES)
      throw queryErrors.tooLarge(`bytes of one ${field.op} value of ${this.stage}`, MAX_DOCUMENT_BYTES);
    if (this.budget.bytes > MAX_GROUP_BYTES)
      throw queryErrors.tooLarge(`bytes held by the accumulators of one ${this.stage}`, MAX_GROUP_BYTES);
  }
}

function initialState(field: AccumulatorField): State {
  const { op, expr } = field;
  switch (op) {
    case '$sum':
    case '$count':
      if (expr.kind === 'const' && (typeof expr.value === 'number' || typeof expr.value === 'bigint')) {
        return { op: '$sumConstant', total: new ConstantTotal(expr.value) };
      }
      return { op: '$sum', total: new NumericTotal() };
    case '$avg':
      return { op, total: new NumericTotal() };
    case '$first':
      return { op, seen: false, value: undefined };
    case '$push':
      return { op, items: [], bytes: 0 };
    case '$addToSet':
      return { op, keys: new Set(), items: [], bytes: 0 };
    case '$mergeObjects':
      return { op, merged: {}, bytes: 0 };
    case '$stdDevPop':
    case '$stdDevSamp':
      return { op, count: 0, mean: 0, m2: 0 };
    default:
      return { op, value: undefined };
  }
}

/** Folds one value in; returns how many values the state now holds in addition. */
function accumulate(state: State, v: Value | undefined, field: AccumulatorField): number {
  // No decimal arithmetic (docs/query-engine-js.md, "Decimals"): refused rather than skipped as a non-number.
  if (isDecimal(v) && ['$sum', '$avg', '$stdDevPop', '$stdDevSamp'].includes(state.op))
    throw pipelineErrors.badExpression(state.op, 'decimal arithmetic is not supported');
  switch (state.op) {
    case '$sum':
    case '$avg':
      state.total.add(v);
      return 0;
    case '$sumConstant':
      state.total.add();
      return 0;
    case '$first':
      if (!state.seen) [state.seen, state.value] = [true, v];
      return 0;
    case '$last':
      state.value = v;
      return 0;
    case '$min':
    case '$max':
      return foldExtreme(state, v);
    case '$push':
      if (v === undefined) return 0;
      state.items.push(v);
      return 1;
    case '$addToSet':
      return addToSet(state, v);
    case '$mergeObjects':
      return mergeInto(state, v, field);
    default:
      foldDeviation(state, v);
      return 0;
  }
}

/** $min and $max skip null and missing; the first of equal values is kept. */
function foldExtreme(state: Extract<State, { op: '$min' | '$max' | '$last' }>, v: Value | undefined): number {
  if (v === undefined || v === null) return 0;
  if (state.value === undefined) state.value = v;
  else {
    const c = compareValues(v, state.value);
    if (state.op === '$min' ? c < 0 : c > 0) state.value = v;
  }
  return 0;
}

function addToSet(state: Extract<State, { op: '$addToSet' }>, v: Value | undefined): number {
  if (v === undefined) return 0;
  const key = equalityKey(v);
  if (state.keys.has(key)) return 0;
  state.keys.add(key);
  state.items.push(v);
  return 1;
}

/** $mergeObjects: documents merged in order (later fields win, in the place of the first); null and missing skipped. */
function mergeInto(
  state: Extract<State, { op: '$mergeObjects' }>,
  v: Value | undefined,
  f: AccumulatorField,
) {
  if (v === undefined || v === null) return 0;
  if (!isDoc(v))
    throw pipelineErrors.badExpression(f.op, `requires object inputs, but an input is ${describe(v)}`);
  let added = 0;
  for (const key of Object.keys(v)) {
    if (!Object.hasOwn(state.merged, key)) added++;
    setField(state.merged, key, v[key]!);
  }
  return added;
}

function describe(v: Value): string {
  return Array.isArray(v) ? 'an array' : `of type ${typeof v === 'bigint' ? 'long' : typeof v}`;
}

/** MongoDB's AccumulatorStdDev: Welford's online algorithm over the numbers (other values are ignored). */
function foldDeviation(state: Extract<State, { op: '$stdDevPop' | '$stdDevSamp' }>, v: Value | undefined) {
  if (typeof v !== 'number' && typeof v !== 'bigint') return;
  const x = Number(v);
  state.count += 1;
  const delta = x - state.mean;
  if (delta !== 0) {
    state.mean += delta / state.count;
    state.m2 += delta * (x - state.mean);
  }
}

function finalValue(state: State): Value {
  switch (state.op) {
    case '$sum':
    case '$sumConstant':
      return state.total.sum();
    case '$avg':
      return state.total.average();
    case '$push':
    case '$addToSet':
      return state.items;
    case '$mergeObjects':
      return state.merged;
    case '$stdDevPop':
    case '$stdDevSamp': {
      const n = state.op === '$stdDevSamp' ? state.count - 1 : state.count;
      return n <= 0 ? null : Math.sqrt(state.m2 / n);
    }
    default:
      return state.value ?? null;
  }
}
