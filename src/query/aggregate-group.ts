// The $group stage: group keys compared by value as MongoDB does, and its accumulators. Keys and accumulator
// arguments are any aggregation expressions (src/query/expr/). $bucket and $bucketAuto reuse the accumulators.

import { type AccumulatorField, AccumulatorStates, parseAccumulators } from './aggregate-accumulators.js';
import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { pipelineErrors } from './pipeline-errors.js';
import { equalityKey } from './value-identity.js';
import { type Doc, isDoc, type Value } from './values.js';

export interface GroupSpec {
  id: Expr;
  fields: AccumulatorField[];
}

export function parseGroup(spec: Value): GroupSpec {
  const bad = (why: string) => pipelineErrors.badStage('$group', why);
  if (!isDoc(spec)) throw bad('the specification must be a document');
  if (!Object.hasOwn(spec, '_id')) throw bad('a group specification must include an _id');
  const rest: Doc = { ...spec };
  delete rest._id;
  return { id: parseExpression(spec._id!, '$group'), fields: parseAccumulators(rest, '$group') };
}

interface Group {
  id: Value;
  states: AccumulatorStates;
}

/** Groups documents as they come; holds at most `limit` groups plus pushed values (and bytes), else 400. */
export class GroupAccumulator {
  private readonly groups = new Map<string, Group>();
  private held = 0;
  private readonly budget: { bytes: number };

  constructor(
    private readonly spec: GroupSpec,
    private readonly limit: number,
    /** $$NOW of the pipeline. */
    private readonly now: Date,
    private readonly stage = '$group',
  ) {
    this.budget = { bytes: 0 };
  }

  add(doc: Doc): void {
    this.addWithId(evaluate(this.spec.id, doc, this.now) ?? null, doc);
  }

  /** Adds `doc` to the group of `id` (computed by the caller: $bucket's boundaries). */
  addWithId(id: Value, doc: Doc): void {
    const key = equalityKey(id);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { id, states: new AccumulatorStates(this.spec.fields, this.stage, this.budget) };
      this.groups.set(key, group);
      this.hold(1);
    }
    this.hold(group.states.add(doc, this.now));
  }

  /** The groups in the order their first document came (MongoDB leaves the order unspecified). */
  *results(): Generator<Doc> {
    for (const group of this.groups.values()) {
      const out: Doc = { _id: group.id };
      group.states.finish(out);
      yield out;
    }
  }

  private hold(n: number): void {
    this.held += n;
    if (this.held > this.limit) throw pipelineErrors.bufferLimit(this.stage, this.limit);
  }
}
