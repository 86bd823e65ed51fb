// Find projections and the $project stage: inclusion or exclusion trees applied with MongoDB 4.4+ semantics.
import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { splitPath } from './field-path.js';
import { pipelineErrors } from './pipeline-errors.js';
import {
  type ElemMatchNode,
  elemMatchValue,
  type PositionalNode,
  parseElemMatch,
  parseSlice,
  positionalValue,
  type SliceNode,
  sliceValue,
} from './projection-ops.js';
import { cloneValue } from './value-identity.js';
import { type Doc, fromWire, isDoc, setField, type Value } from './values.js';

type Node =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'computed'; expr: Expr }
  | SliceNode
  | ElemMatchNode
  | PositionalNode
  | { kind: 'sub'; children: Tree };
type Tree = Map<string, Node>;

export interface Projection {
  /** 'none' only for an empty find projection: documents pass unchanged. */
  kind: 'inclusion' | 'exclusion' | 'none';
  tree: Tree;
  /** A positional `field.$` needs the position the query matched (applyProjection's `position`). */
  positional: boolean;
}

/** find (4.4+: $slice, $elemMatch, `field.$` and expressions) or the $project stage (expressions). */
type Mode = 'find' | 'project';

interface Entry {
  path: string[];
  node: Exclude<Node, { kind: 'sub' }>;
}

/**
 * Parses a find projection as sent (extended JSON): field paths (or nested documents of them) to
 * 1/0/true/false or any number; null or undefined means no projection.
 */
export function parseProjection(fields: unknown): Projection {
  if (fields === undefined || fields === null) return { kind: 'none', tree: new Map(), positional: false };
  return buildProjection(fromWire(fields, { allowDollarKeys: true }), 'find');
}

/**
 * Parses a $project stage (already converted from extended JSON): as a find projection, plus top-level computed
 * fields (any aggregation expression: src/query/expr/). It must name at least one field.
 */
export function parseProjectStage(spec: Value): Projection {
  const p = buildProjection(spec, 'project');
  if (p.kind === 'none') throw pipelineErrors.badStage('$project', 'it requires at least one output field');
  return p;
}

function buildProjection(fields: unknown, mode: Mode): Projection {
  if (!isDoc(fields as Value)) throw pipelineErrors.badProjection('the projection must be a document');
  const entries: Entry[] = [];
  collectEntries(fields as Doc, [], mode, entries);
  checkCollisions(entries);
  const positional = entries.filter((e) => e.node.kind === 'positional').length;
  if (positional > 1) throw pipelineErrors.badProjection("'.$': at most one positional projection per query");
  const kind = projectionKind(entries);
  const tree: Tree = new Map();
  for (const entry of entries) {
    const isId = entry.path.length === 1 && entry.path[0] === '_id';
    // An _id flag never decides the kind; _id: 1 in an exclusion projection changes nothing.
    if (isId && kind === 'exclusion' && entry.node.kind === 'include') continue;
    addToTree(tree, entry.path, entry.node);
  }
  if (kind === 'inclusion' && !entries.some((e) => e.path[0] === '_id'))
    addToTree(tree, ['_id'], { kind: 'include' });
  return { kind, tree, positional: positional > 0 };
}

function collectEntries(spec: Doc, prefix: string[], mode: Mode, out: Entry[]): void {
  for (const key of Object.keys(spec)) {
    const parts = splitPath(key);
    // find's positional projection: `field.$` (the `$` last, once), an inclusion of that field.
    const positional = mode === 'find' && parts.length > 1 && parts[parts.length - 1] === '$';
    if (positional) parts.pop();
    for (const part of parts) {
      if (part === '$' || part.startsWith('$['))
        throw pipelineErrors.unsupportedProjection(`positional ${part} (only at the end: 'field.$')`);
      if (part === '' || part.startsWith('$')) throw pipelineErrors.badProjection(`bad field path '${key}'`);
    }
    const path = [...prefix, ...parts];
    const value = spec[key]!;
    if (positional) {
      const on = typeof value === 'boolean' ? value : typeof value === 'number' ? value !== 0 : false;
      if (!on)
        throw pipelineErrors.badProjection(`'.$': the positional projection '${key}' must be 1 or true`);
      out.push({ path, node: { kind: 'positional' } });
    } else if (typeof value === 'boolean') out.push({ path, node: { kind: value ? 'include' : 'exclude' } });
    else if (typeof value === 'number' || typeof value === 'bigint') {
      out.push({ path, node: { kind: Number(value) === 0 ? 'exclude' : 'include' } });
    } else if (isDoc(value) && !Object.keys(value)[0]?.startsWith('$')) {
      if (Object.keys(value).length === 0)
        throw pipelineErrors.badProjection(`an empty sub-projection at '${key}'`);
      collectEntries(value, path, mode, out);
    } else {
      out.push({ path, node: parseValueNode(value, path, mode) });
    }
  }
}

function parseValueNode(value: Value, path: string[], mode: Mode): Entry['node'] {
  const keys = isDoc(value) ? Object.keys(value) : [];
  const first = keys[0];
  if (mode === 'find' && keys.length === 1 && isDoc(value)) {
    if (first === '$slice') return parseSlice(value.$slice);
    if (first === '$elemMatch') return parseElemMatch(path, value.$elemMatch);
  }
  if (first === '$meta') throw pipelineErrors.unsupportedProjection(first);
  // MongoDB 4.4+: any other value is an aggregation expression (a literal, "$field", {$add: [...]}...).
  const where = mode === 'find' ? 'projection' : '$project';
  if (path.length > 1)
    throw pipelineErrors.badStage(where, `computed dotted field '${path.join('.')}' is not supported`);
  return { kind: 'computed', expr: parseExpression(value, where) };
}

/**
 * No path may equal or contain another. Sorted part by part, a path is directly followed by one it is a prefix
 * of whenever it has any, so neighbours suffice: O(n log n) for n fields rather than every pair.
 */
function checkCollisions(entries: Entry[]): void {
  const keys = entries.map((e) => e.path).sort(compareParts);
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1]!;
    const b = keys[i]!;
    if (a.length <= b.length && a.every((part, k) => part === b[k])) {
      throw pipelineErrors.badProjection(`Path collision at ${b.join('.')}`);
    }
  }
}

function compareParts(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function projectionKind(entries: Entry[]): Projection['kind'] {
  const isId = (e: Entry) => e.path.length === 1 && e.path[0] === '_id' && e.node.kind !== 'computed';
  // $slice alone keeps every other field: it counts as neither inclusion nor exclusion.
  const others = entries.filter((e) => !isId(e) && e.node.kind !== 'slice');
  const included = others.find((e) => e.node.kind !== 'exclude');
  const excluded = others.find((e) => e.node.kind === 'exclude');
  if (included && excluded) {
    throw pipelineErrors.badProjection(
      `Cannot do exclusion on field ${excluded.path.join('.')} in inclusion projection`,
    );
  }
  if (included) return 'inclusion';
  if (excluded || entries.some((e) => e.node.kind === 'slice')) return 'exclusion';
  const id = entries.find(isId);
  if (id === undefined) return 'none';
  return id.node.kind === 'include' ? 'inclusion' : 'exclusion';
}

function addToTree(tree: Tree, path: string[], node: Entry['node']): void {
  let cur = tree;
  for (const part of path.slice(0, -1)) {
    let next = cur.get(part);
    if (next === undefined) {
      next = { kind: 'sub', children: new Map() };
      cur.set(part, next);
    }
    if (next.kind !== 'sub') return;
    cur = next.children;
  }
  cur.set(path[path.length - 1]!, node);
}

/**
 * Applies a projection to a document (never mutated); fields keep the document's order. `now` is $$NOW for
 * computed fields; `position` the array position the query matched, for a positional `field.$`.
 */
export function applyProjection(doc: Doc, p: Projection, now: Date = new Date(), position?: number): Doc {
  if (p.kind === 'none') return cloneValue(doc);
  if (p.kind === 'exclusion') return excludeFields(doc, p.tree);
  const out = includeFields(doc, p.tree, position);
  // $elemMatch and computed fields come after the included ones, in the order the projection names them
  // (MongoDB 4.4+: "the $elemMatch projection of an existing field returns the field after the other
  // existing field inclusions").
  for (const [key, node] of p.tree) {
    let value: Value | undefined;
    if (node.kind === 'computed') value = evaluate(node.expr, doc, now);
    else if (node.kind === 'elemMatch') value = elemMatchValue(doc, node);
    else continue;
    if (value !== undefined) setField(out, key, value);
  }
  return out;
}

function includeFields(doc: Doc, tree: Tree, position: number | undefined): Doc {
  const out: Doc = {};
  for (const key of Object.keys(doc)) {
    const node = tree.get(key);
    if (node === undefined) continue;
    const v = doc[key]!;
    switch (node.kind) {
      case 'include':
        setField(out, key, cloneValue(v));
        break;
      case 'slice':
        setField(out, key, sliceValue(v, node));
        break;
      case 'positional':
        setField(out, key, positionalValue(v, position));
        break;
      case 'sub': {
        const value = includeValue(v, node.children, position);
        if (value !== undefined) setField(out, key, value);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** Below an included path, arrays keep only their documents (and nested arrays), each projected. */
function includeValue(v: Value, tree: Tree, position: number | undefined): Value | undefined {
  if (isDoc(v)) return includeFields(v, tree, position);
  if (!Array.isArray(v)) return undefined;
  const out: Value[] = [];
  for (const item of v) {
    const projected = includeValue(item, tree, position);
    if (projected !== undefined) out.push(projected);
  }
  return out;
}

function excludeFields(doc: Doc, tree: Tree): Doc {
  const out: Doc = {};
  for (const key of Object.keys(doc)) {
    const node = tree.get(key);
    const value = doc[key]!;
    if (node === undefined) setField(out, key, cloneValue(value));
    else if (node.kind === 'sub') setField(out, key, excludeValue(value, node.children));
    else if (node.kind === 'slice') setField(out, key, sliceValue(value, node));
  }
  return out;
}

/** Below an excluded path, array elements that are not documents stay as they are. */
function excludeValue(v: Value, tree: Tree): Value {
  if (isDoc(v)) return excludeFields(v, tree);
  if (Array.isArray(v)) return v.map((item) => excludeValue(item, tree));
  return cloneValue(v);
}
