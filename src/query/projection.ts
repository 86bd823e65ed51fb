// Find projections and the $project stage: inclusion or exclusion trees applied with MongoDB 4.4+ semantics.
import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { splitPath } from './field-path.js';
import { pipelineErrors } from './pipeline-errors.js';
import { cloneValue } from './value-identity.js';
import { type Doc, fromWire, isDoc, setField, type Value } from './values.js';

type Node =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'computed'; expr: Expr }
  | { kind: 'sub'; children: Tree };
type Tree = Map<string, Node>;

export interface Projection {
  /** 'none' only for an empty find projection: documents pass unchanged. */
  kind: 'inclusion' | 'exclusion' | 'none';
  tree: Tree;
}

interface Entry {
  path: string[];
  node: Exclude<Node, { kind: 'sub' }>;
}

/**
 * Parses a find projection as sent (extended JSON): field paths (or nested documents of them) to
 * 1/0/true/false or any number; null or undefined means no projection.
 */
export function parseProjection(fields: unknown): Projection {
  if (fields === undefined || fields === null) return { kind: 'none', tree: new Map() };
  return buildProjection(fromWire(fields, { allowDollarKeys: true }), false);
}

/**
 * Parses a $project stage (already converted from extended JSON): as a find projection, plus top-level computed
 * fields (any aggregation expression: src/query/expr/). It must name at least one field.
 */
export function parseProjectStage(spec: Value): Projection {
  const p = buildProjection(spec, true);
  if (p.kind === 'none') throw pipelineErrors.badStage('$project', 'it requires at least one output field');
  return p;
}

function buildProjection(fields: unknown, computed: boolean): Projection {
  if (!isDoc(fields as Value)) throw pipelineErrors.badProjection('the projection must be a document');
  const entries: Entry[] = [];
  collectEntries(fields as Doc, [], computed, entries);
  checkCollisions(entries);
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
  return { kind, tree };
}

function collectEntries(spec: Doc, prefix: string[], computed: boolean, out: Entry[]): void {
  for (const key of Object.keys(spec)) {
    const parts = splitPath(key);
    for (const part of parts) {
      if (part === '$' || part.startsWith('$['))
        throw pipelineErrors.unsupportedProjection(`positional ${part}`);
      if (part === '' || part.startsWith('$')) throw pipelineErrors.badProjection(`bad field path '${key}'`);
    }
    const path = [...prefix, ...parts];
    const value = spec[key]!;
    if (typeof value === 'boolean') out.push({ path, node: { kind: value ? 'include' : 'exclude' } });
    else if (typeof value === 'number' || typeof value === 'bigint') {
      out.push({ path, node: { kind: Number(value) === 0 ? 'exclude' : 'include' } });
    } else if (isDoc(value) && !Object.keys(value)[0]?.startsWith('$')) {
      if (Object.keys(value).length === 0)
        throw pipelineErrors.badProjection(`an empty sub-projection at '${key}'`);
      collectEntries(value, path, computed, out);
    } else {
      out.push({ path, node: parseComputed(value, path, computed) });
    }
  }
}

function parseComputed(value: Value, path: string[], computed: boolean): Entry['node'] {
  const first = isDoc(value) ? Object.keys(value)[0] : undefined;
  const isExpression = first === undefined || first.startsWith('$');
  if (!computed || !isExpression) {
    if (first !== undefined && first !== '$literal') throw pipelineErrors.unsupportedProjection(first);
    throw pipelineErrors.badProjection(`unsupported value for '${path.join('.')}' (use 1/0/true/false)`);
  }
  if (path.length > 1)
    throw pipelineErrors.badStage('$project', `computed dotted field '${path.join('.')}' is not supported`);
  return { kind: 'computed', expr: parseExpression(value, '$project') };
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
  const others = entries.filter((e) => !isId(e));
  const included = others.find((e) => e.node.kind !== 'exclude');
  const excluded = others.find((e) => e.node.kind === 'exclude');
  if (included && excluded) {
    throw pipelineErrors.badProjection(
      `Cannot do exclusion on field ${excluded.path.join('.')} in inclusion projection`,
    );
  }
  if (included) return 'inclusion';
  if (excluded) return 'exclusion';
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
 * Applies a projection to a document (never mutated); fields keep the document's order. `now` is the pipeline's
 * $$NOW for computed fields (only $project has them; a find projection never reads it).
 */
export function applyProjection(doc: Doc, p: Projection, now: Date = new Date()): Doc {
  if (p.kind === 'none') return cloneValue(doc);
  if (p.kind === 'exclusion') return excludeFields(doc, p.tree);
  const out = includeFields(doc, p.tree);
  // Computed fields come after the included ones, in the order the projection names them.
  for (const [key, node] of p.tree) {
    if (node.kind !== 'computed') continue;
    const value = evaluate(node.expr, doc, now);
    if (value !== undefined) setField(out, key, value);
  }
  return out;
}

function includeFields(doc: Doc, tree: Tree): Doc {
  const out: Doc = {};
  for (const key of Object.keys(doc)) {
    const node = tree.get(key);
    if (node === undefined || node.kind === 'computed' || node.kind === 'exclude') continue;
    if (node.kind === 'include') setField(out, key, cloneValue(doc[key]!));
    else {
      const value = includeValue(doc[key]!, node.children);
      if (value !== undefined) setField(out, key, value);
    }
  }
  return out;
}

/** Below an included path, arrays keep only their documents (and nested arrays), each projected. */
function includeValue(v: Value, tree: Tree): Value | undefined {
  if (isDoc(v)) return includeFields(v, tree);
  if (!Array.isArray(v)) return undefined;
  const out: Value[] = [];
  for (const item of v) {
    const projected = includeValue(item, tree);
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
  }
  return out;
}

/** Below an excluded path, array elements that are not documents stay as they are. */
function excludeValue(v: Value, tree: Tree): Value {
  if (isDoc(v)) return excludeFields(v, tree);
  if (Array.isArray(v)) return v.map((item) => excludeValue(item, tree));
  return cloneValue(v);
}
