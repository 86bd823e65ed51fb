// The $group stage: group keys compared by value as MongoDB does, and its eight supported accumulators.
// Keys and accumulator arguments are any aggregation expressions (src/query/expr/).

import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { ConstantTotal, NumericTotal } from './aggregate-sum.js';
import { compareValues } from './compare-values.js';
import { pipelineErrors } from './pipeline-errors.js';
import { equalityKey } from './value-identity.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

const ACCUMULATORS = ['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet'] as const;
type AccumulatorOp = (typeof ACCUMULATORS)[number];

export interface GroupSpec {
  id: Expr;
  fields: Array<{ name: string; op: AccumulatorOp; expr: Expr }>;
}

export function parseGroup(spec: Value): GroupSpec {
  const bad = (why: string) => pipelineErrors.badStage('$group', why);
  if (!isDoc(spec)) throw bad('the specification must be a document');
  if (!Object.hasOwn(spec, '_id')) throw bad('a group specification must include an _id');
  const fields: GroupSpec['fields'] = [];
  for (const name of Object.keys(spec)) {
    if (name === '_id') continue;
    if (name.includes('.') || name.startsWith('$'))
      throw bad(`the field name '${name}' cannot contain '.' or start with '$'`);
    const acc = spec[name]!;
    const ops = isDoc(acc) ? Object.keys(acc) : [];
    if (ops.length !== 1 || !ops[0]!.startsWith('$'))
      throw bad(`the field '${name}' must be an accumulator object`);
    const op = ops[0]!;
    if (!(ACCUMULATORS as readonly string[]).includes(op)) throw pipelineErrors.unknownAccumulator(op);
    const arg = (acc as Doc)[op]!;
    if (Array.isArray(arg)) throw bad(`the ${op} accumulator is a unary operator`);
    fields.push({ name, op: op as AccumulatorOp, expr: parseExpression(arg, '$group') });
  }
  return { id: parseExpression(spec._id!, '$group'), fields };
}

type State =
  | { op: '$sum' | '$avg'; total: NumericTotal }
  | { op: '$sumConstant'; total: ConstantTotal }
  | { op: '$min' | '$max' | '$last'; value: Value | undefined }
  | { op: '$first'; seen: boolean; value: Value | undefined }
  | { op: '$push'; items: Value[] }
  | { op: '$addToSet'; keys: Set<string>; items: Value[] };

interface Group {
  id: Value;
  states: State[];
}

/** Groups documents as they come; holds at most `limit` groups plus pushed values, else 400. */
export class GroupAccumulator {
  private readonly groups = new Map<string, Group>();
  private held = 0;

  constructor(
    private readonly spec: GroupSpec,
    private readonly limit: number,
    /** $$NOW of the pipeline. */
    private readonly now: Date,
  ) {}

  add(doc: Doc): void {
    const id = evaluate(this.spec.id, doc, this.now) ?? null;
    const key = equalityKey(id);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { id, states: this.spec.fields.map(initialState) };
      this.groups.set(key, group);
      this.hold(1);
    }
    this.spec.fields.forEach((field, i) => {
      this.hold(accumulate(group.states[i]!, evaluate(field.expr, doc, this.now)));
    });
  }

  /** The groups in the order their first document came (MongoDB leaves the order unspecified). */
  *results(): Generator<Doc> {
    for (const group of this.groups.values()) {
      const out: Doc = { _id: group.id };
      this.spec.fields.forEach((field, i) => {
        setField(out, field.name, finalValue(group.states[i]!));
      });
      yield out;
    }
  }

  private hold(n: number): void {
    this.held += n;
    if (this.held > this.limit) throw pipelineErrors.bufferLimit('$group', this.limit);
  }
}

function initialState(field: GroupSpec['fields'][number]): State {
  const { op, expr } = field;
  switch (op) {
    case '$sum':
      if (expr.kind === 'const' && (typeof expr.value === 'number' || typeof expr.value === 'bigint')) {
        return { op: '$sumConstant', total: new ConstantTotal(expr.value) };
      }
      return { op, total: new NumericTotal() };
    case '$avg':
      return { op, total: new NumericTotal() };
    case '$first':
      return { op, seen: false, value: undefined };
    case '$push':
      return { op, items: [] };
    case '$addToSet':
      return { op, keys: new Set(), items: [] };
    default:
      return { op, value: undefined };
  }
}

/** Folds one value in; returns how many values the state now holds in addition. */
function accumulate(state: State, v: Value | undefined): number {
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
    default:
      return addToSet(state, v);
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
    default:
      return state.value ?? null;
  }
}
