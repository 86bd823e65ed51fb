// The aggregation expressions evaluated in JavaScript: field paths, $$ROOT/$$CURRENT, $literal, constants,
// and documents or arrays of those. Every other expression operator is refused with a 400 naming it.
import { splitPath } from './field-path.js';
import { pipelineErrors } from './pipeline-errors.js';
import { cloneValue } from './value-identity.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

export type Expr =
  | { kind: 'const'; value: Value }
  | { kind: 'path'; path: string[] }
  | { kind: 'object'; fields: Array<[string, Expr]> }
  | { kind: 'array'; items: Expr[] };

/** Parses an expression; `where` names the stage for error messages. */
export function parseExpression(v: Value, where: string): Expr {
  if (typeof v === 'string') return parseStringExpr(v, where);
  if (Array.isArray(v)) return { kind: 'array', items: v.map((item) => parseExpression(item, where)) };
  if (!isDoc(v)) return { kind: 'const', value: v };
  const keys = Object.keys(v);
  const first = keys[0];
  if (first?.startsWith('$')) {
    if (keys.length !== 1)
      throw pipelineErrors.badStage(where, 'an expression operator must be the only field');
    if (first === '$literal') return { kind: 'const', value: v.$literal! };
    throw pipelineErrors.unknownExpression(first);
  }
  const fields = keys.map((key): [string, Expr] => {
    if (key.startsWith('$') || key.includes('.') || key === '') {
      throw pipelineErrors.badStage(where, `bad field name '${key}' in an expression object`);
    }
    return [key, parseExpression(v[key]!, where)];
  });
  return { kind: 'object', fields };
}

function parseStringExpr(s: string, where: string): Expr {
  if (!s.startsWith('$')) return { kind: 'const', value: s };
  if (s.startsWith('$$')) {
    const dot = s.indexOf('.');
    const name = dot < 0 ? s.slice(2) : s.slice(2, dot);
    if (name !== 'ROOT' && name !== 'CURRENT') throw pipelineErrors.unknownExpression(`$$${name}`);
    return { kind: 'path', path: dot < 0 ? [] : parseFieldPath(s.slice(dot + 1), where) };
  }
  return { kind: 'path', path: parseFieldPath(s.slice(1), where) };
}

/** A field path after its $: non-empty parts, none starting with $. */
export function parseFieldPath(path: string, where: string): string[] {
  const parts = splitPath(path);
  for (const part of parts) {
    if (part === '' || part.startsWith('$'))
      throw pipelineErrors.badStage(where, `bad field path '$${path}'`);
  }
  return parts;
}

/** Evaluates to a value, or undefined for "missing" (which documents omit and arrays turn into null). */
export function evaluate(expr: Expr, root: Doc): Value | undefined {
  switch (expr.kind) {
    case 'const':
      return cloneValue(expr.value);
    case 'path':
      return expr.path.length === 0 ? root : evaluatePath(root, expr.path, 0);
    case 'array':
      return expr.items.map((item) => evaluate(item, root) ?? null);
    default: {
      const out: Doc = {};
      for (const [key, sub] of expr.fields) {
        const value = evaluate(sub, root);
        if (value !== undefined) setField(out, key, value);
      }
      return out;
    }
  }
}

/**
 * MongoDB's field path evaluation: through documents by name; through an array by applying the rest of the
 * path to each element that is a document (or, recursively, an array), skipping elements where it is missing.
 * Numeric parts are names, never array indexes.
 */
function evaluatePath(doc: Doc, path: string[], index: number): Value | undefined {
  const key = path[index]!;
  const value = Object.hasOwn(doc, key) ? doc[key] : undefined;
  if (index === path.length - 1 || value === undefined) return value;
  if (isDoc(value)) return evaluatePath(value, path, index + 1);
  if (Array.isArray(value)) return evaluateOverArray(value, path, index + 1);
  return undefined;
}

function evaluateOverArray(items: Value[], path: string[], index: number): Value[] {
  const out: Value[] = [];
  for (const item of items) {
    const nested = isDoc(item)
      ? evaluatePath(item, path, index)
      : Array.isArray(item)
        ? evaluateOverArray(item, path, index)
        : undefined;
    if (nested !== undefined) out.push(nested);
  }
  return out;
}
