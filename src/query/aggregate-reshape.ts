// Stages that reshape each document as it passes: $addFields/$set, $unset, $replaceRoot/$replaceWith, $match
// with $expr, and $sample (which holds its sample). Expressions see the input document as $$ROOT and $$CURRENT.
import { type Expr, evaluate, evaluateCondition, parseExpression, parseFieldPath } from './aggregate-expr.js';
import type { Processor } from './aggregate-stages.js';
import { type FilterNode, matchesFilter, parseFilter } from './filter.js';
import { pipelineErrors } from './pipeline-errors.js';
import { applyProjection, type Projection, parseProjectStage } from './projection.js';
import { type Doc, fromWire, isDoc, setField, type Value } from './values.js';

const streaming = (push: Processor['push']): Processor => ({ push, flush: () => {}, finished: () => false });

/** $addFields' fields as a tree: a leaf is an expression, a branch the fields set inside a sub-document. */
export type FieldTree = Map<string, Expr | FieldTree>;

/**
 * `{name: expression, "a.b": expression, a: {b: expression}}`: a dotted name and a nested document of
 * expressions are the same (MongoDB parses both as one projection tree); a path inside another is refused.
 */
export function parseAddFields(spec: Value, stage: string): FieldTree {
  if (!isDoc(spec)) throw pipelineErrors.badStage(stage, 'the specification must be a document');
  const tree: FieldTree = new Map();
  addEntries(spec, tree, stage, '');
  return tree;
}

function addEntries(spec: Doc, tree: FieldTree, stage: string, prefix: string): void {
  for (const key of Object.keys(spec)) {
    if (key === '' || key.startsWith('$'))
      throw pipelineErrors.badStage(stage, `bad field name '${prefix}${key}'`);
    const parts = parseFieldPath(key, stage);
    let node = tree;
    for (const part of parts.slice(0, -1)) {
      const next = node.get(part);
      if (next !== undefined && !(next instanceof Map))
        throw pipelineErrors.badStage(stage, `the path '${prefix}${key}' collides with another field`);
      if (next === undefined) node.set(part, new Map());
      node = node.get(part) as FieldTree;
    }
    const last = parts.at(-1)!;
    if (node.has(last))
      throw pipelineErrors.badStage(stage, `the path '${prefix}${key}' collides with another field`);
    const value = spec[key]!;
    const keys = isDoc(value) ? Object.keys(value) : [];
    if (isDoc(value) && keys.length === 0)
      throw pipelineErrors.badStage(
        stage,
        `an empty object is not a valid value at '${prefix}${key}' (write {$literal: {}})`,
      );
    if (isDoc(value) && keys.length > 0 && !keys[0]!.startsWith('$')) {
      const sub: FieldTree = new Map();
      node.set(last, sub);
      addEntries(value, sub, stage, `${prefix}${key}.`);
    } else node.set(last, parseExpression(value, stage));
  }
}

/**
 * MongoDB's computed projection: a field set to a missing value ($$REMOVE) is removed, an existing field keeps
 * its place, a new one goes last. Inside a path, arrays are applied element by element (nested arrays too), and
 * a value that is not a document is replaced by a new document of the computed fields.
 */
export function addFieldsProcessor(tree: FieldTree, now: Date): Processor {
  return streaming((doc, emit) => emit(applyTree(doc, tree, doc, now)));
}

function applyTree(input: Doc, tree: FieldTree, root: Doc, now: Date): Doc {
  const out: Doc = { ...input };
  for (const [name, node] of tree) {
    if (node instanceof Map) {
      setField(
        out,
        name,
        applyToValue(Object.hasOwn(input, name) ? input[name] : undefined, node, root, now),
      );
      continue;
    }
    const v = evaluate(node, root, now);
    if (v === undefined) delete out[name];
    else setField(out, name, v);
  }
  return out;
}

function applyToValue(v: Value | undefined, tree: FieldTree, root: Doc, now: Date): Value {
  if (isDoc(v)) return applyTree(v, tree, root, now);
  if (Array.isArray(v)) return v.map((item) => applyToValue(item, tree, root, now));
  return applyTree({}, tree, root, now);
}

/** $unset: a field path or an array of them, removed as an exclusion projection removes them. */
export function parseUnset(arg: Value): Projection {
  const paths = typeof arg === 'string' ? [arg] : arg;
  if (!Array.isArray(paths) || paths.length === 0)
    throw pipelineErrors.badStage('$unset', 'expected a field path or a non-empty array of field paths');
  const spec: Doc = {};
  for (const path of paths) {
    if (typeof path !== 'string' || path === '' || path.startsWith('$'))
      throw pipelineErrors.badStage(
        '$unset',
        'each field path must be a non-empty string not starting with $',
      );
    parseFieldPath(path, '$unset');
    setField(spec, path, 0);
  }
  return parseProjectStage(spec);
}

export function unsetProcessor(projection: Projection, now: Date): Processor {
  return streaming((doc, emit) => emit(applyProjection(doc, projection, now)));
}

/** $replaceRoot `{newRoot: expression}` and $replaceWith `expression`. */
export function parseReplaceRoot(arg: Value, stage: '$replaceRoot' | '$replaceWith'): Expr {
  if (stage === '$replaceWith') return parseExpression(arg, stage);
  if (!isDoc(arg) || Object.keys(arg).length !== 1 || !Object.hasOwn(arg, 'newRoot'))
    throw pipelineErrors.badStage(stage, 'expected {newRoot: <expression>} and no other field');
  return parseExpression(arg.newRoot!, stage);
}

export function replaceRootProcessor(expr: Expr, stage: string, now: Date): Processor {
  return streaming((doc, emit) => {
    const v = evaluate(expr, doc, now);
    if (!isDoc(v)) {
      const what =
        v === undefined ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
      throw pipelineErrors.badStage(stage, `the new root must evaluate to a document, not ${what}`);
    }
    emit(v);
  });
}

/** A $match whose filter has `$expr` at its top: the rest of the filter and the expression, both required. */
export interface MatchExpr {
  node: FilterNode;
  expr: Expr;
}

export function parseMatchExpr(raw: Record<string, unknown>): MatchExpr {
  const { $expr, ...rest } = raw;
  return {
    node: parseFilter(rest),
    expr: parseExpression(fromWire($expr, { allowDollarKeys: true }), '$expr'),
  };
}

export function matchExprProcessor(spec: MatchExpr, now: Date): Processor {
  return streaming((doc, emit) => {
    if (matchesFilter(spec.node, doc) && evaluateCondition(spec.expr, doc, now)) emit(doc);
  });
}

/** $sample `{size: n}`. */
export function parseSample(arg: Value): number {
  const size = isDoc(arg) && Object.keys(arg).length === 1 ? arg.size : undefined;
  const n = typeof size === 'bigint' ? Number(size) : size;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw pipelineErrors.badStage('$sample', 'expected {size: <a non-negative integer>}');
  return n;
}

/**
 * $sample: `size` documents drawn without replacement (reservoir sampling, so it holds at most `size`, within
 * the buffer cap), emitted in random order.
 */
export function sampleProcessor(size: number, cap: number, random: () => number = Math.random): Processor {
  const kept: Doc[] = [];
  let seen = 0;
  return {
    push: (doc) => {
      seen++;
      if (kept.length < size) {
        kept.push(doc);
        if (kept.length > cap) throw pipelineErrors.bufferLimit('$sample', cap);
        return;
      }
      const j = Math.floor(random() * seen);
      if (j < size) kept[j] = doc;
    },
    flush: (emit) => {
      for (let i = kept.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [kept[i], kept[j]] = [kept[j]!, kept[i]!];
      }
      for (const doc of kept) emit(doc);
      kept.length = 0;
    },
    finished: () => false,
  };
}
