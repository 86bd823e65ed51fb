// The aggregation expression language: the parsed tree, the operator registry, variables and evaluation.
// Parsing validates operand counts and constant operands once (400 naming the operator); evaluation is pure
// (no clock: $$NOW comes from the context) and bounded by a work budget per evaluation.
import { queryErrors } from '../errors.js';
import { splitPath } from '../field-path.js';
import { pipelineErrors } from '../pipeline-errors.js';
import { cloneValue } from '../value-identity.js';
import { type Doc, isDoc, setField, type Value } from '../values.js';

/** What an expression evaluates to: a value, or undefined for "missing". */
export type Out = Value | undefined;

export interface Ctx {
  root: Doc;
  /** $$CURRENT, which field paths read: the document, unless a $let rebinds it. */
  current: Out;
  /** User variables ($let, $filter/$map `as`, $reduce's this/value), bound and restored around their scope. */
  vars: Map<string, Out>;
  now: Date;
  /** Work units left for this evaluation (elements and characters produced); past it: 400. */
  budget: { left: number };
}

export type Expr =
  | { kind: 'const'; value: Value }
  | { kind: 'path'; variable: string; path: string[] }
  | { kind: 'object'; fields: Array<[string, Expr]> }
  | { kind: 'array'; items: Expr[] }
  | { kind: 'op'; op: string; run: (ctx: Ctx) => Out };

/** Parsing state: the stage named in errors, the variables in scope and the nesting depth. */
export interface Scope {
  where: string;
  vars: Set<string>;
  depth: number;
}

/** An operator's parser: from its raw operand to a function of the evaluation context. */
export type OpParser = (arg: Value, scope: Scope, op: string) => (ctx: Ctx) => Out;

const REGISTRY = new Map<string, OpParser>();

export function register(ops: Record<string, OpParser>): void {
  for (const [name, parser] of Object.entries(ops)) REGISTRY.set(name, parser);
}

/** Expressions nest at most this deep (parse and evaluation recurse over the tree). */
export const MAX_EXPR_DEPTH = 100;
/** Work units one evaluation may spend: array elements and string characters it builds or walks. */
export const MAX_EXPR_WORK = 10_000_000;
/** Longest string an expression may build (MongoDB's 16 MB document limit). */
export const MAX_EXPR_STRING = 16 * 1024 * 1024;

const SYSTEM_VARS = new Set(['ROOT', 'CURRENT', 'REMOVE', 'NOW']);

export function bad(op: string, why: string): Error {
  return pipelineErrors.badExpression(op, why);
}

/** Spends work units; past the budget the request answers 400 QUERY_TOO_LARGE. */
export function spend(ctx: Ctx, n: number): void {
  ctx.budget.left -= n;
  if (ctx.budget.left < 0) throw queryErrors.tooLarge('work of one expression evaluation', MAX_EXPR_WORK);
}

/** Deepest value an expression may build ($reduce can nest its value once per element). */
export const MAX_VALUE_DEPTH = 200;
const depths = new WeakMap<object, number>();

/**
 * Nesting depth of a value, memoized per array or document: a $reduce step that wraps the previous value costs
 * O(1), not a walk of everything below. Past MAX_VALUE_DEPTH: 400 (deeper values would overflow the stack of
 * the comparisons and copies that recurse over them).
 */
export function checkDepth(v: Out): number {
  if (v === null || typeof v !== 'object' || v instanceof Date || !(Array.isArray(v) || isDoc(v))) return 0;
  const known = depths.get(v);
  if (known !== undefined) return known;
  let max = 0;
  for (const item of Array.isArray(v) ? v : Object.values(v)) max = Math.max(max, checkDepth(item));
  if (max + 1 > MAX_VALUE_DEPTH)
    throw queryErrors.tooLarge('nesting of a value built by an expression', MAX_VALUE_DEPTH);
  depths.set(v, max + 1);
  return max + 1;
}

export function newScope(where: string): Scope {
  return { where, vars: new Set(), depth: 0 };
}

/** Parses an expression; `where` names the stage for error messages. */
export function parseExpr(v: Value, scope: Scope): Expr {
  if (scope.depth > MAX_EXPR_DEPTH) throw queryErrors.tooLarge('nesting of an expression', MAX_EXPR_DEPTH);
  const inner = { ...scope, depth: scope.depth + 1 };
  if (typeof v === 'string') return parseStringExpr(v, scope);
  if (Array.isArray(v)) return { kind: 'array', items: v.map((item) => parseExpr(item, inner)) };
  if (!isDoc(v)) return { kind: 'const', value: v };
  const keys = Object.keys(v);
  const first = keys[0];
  if (first?.startsWith('$')) {
    if (keys.length !== 1)
      throw pipelineErrors.badStage(scope.where, 'an expression operator must be the only field');
    if (first === '$literal') return { kind: 'const', value: v.$literal! };
    const parser = REGISTRY.get(first);
    if (parser === undefined) throw pipelineErrors.unknownExpression(first);
    return { kind: 'op', op: first, run: parser(v[first]!, inner, first) };
  }
  const fields = keys.map((key): [string, Expr] => {
    if (key.startsWith('$') || key.includes('.') || key === '') {
      throw pipelineErrors.badStage(scope.where, `bad field name '${key}' in an expression object`);
    }
    return [key, parseExpr(v[key]!, inner)];
  });
  return { kind: 'object', fields };
}

function parseStringExpr(s: string, scope: Scope): Expr {
  if (!s.startsWith('$')) return { kind: 'const', value: s };
  if (!s.startsWith('$$'))
    return { kind: 'path', variable: 'CURRENT', path: parseFieldPath(s.slice(1), scope.where) };
  const dot = s.indexOf('.');
  const name = dot < 0 ? s.slice(2) : s.slice(2, dot);
  if (!SYSTEM_VARS.has(name) && !scope.vars.has(name)) throw pipelineErrors.unknownExpression(`$$${name}`);
  return { kind: 'path', variable: name, path: dot < 0 ? [] : parseFieldPath(s.slice(dot + 1), scope.where) };
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

/** A user variable name as MongoDB allows it: a lowercase ASCII letter or a non-ASCII character first. */
export function checkVarName(op: string, name: string): void {
  if (!/^[a-z\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*$/.test(name))
    throw bad(op, `'${name}' is not a valid variable name`);
}

/** A scope with more variables bound (for the parse of a sub-expression that sees them). */
export function withVars(scope: Scope, names: string[]): Scope {
  return { ...scope, vars: new Set([...scope.vars, ...names]) };
}

/** Runs `body` with `name` bound to `value`, restoring the previous binding after. */
export function bind<T>(ctx: Ctx, name: string, value: Out, body: () => T): T {
  if (name === 'CURRENT') {
    const outer = ctx.current;
    ctx.current = value;
    try {
      return body();
    } finally {
      ctx.current = outer;
    }
  }
  const had = ctx.vars.has(name);
  const old = ctx.vars.get(name);
  ctx.vars.set(name, value);
  try {
    return body();
  } finally {
    if (had) ctx.vars.set(name, old);
    else ctx.vars.delete(name);
  }
}

export function newCtx(root: Doc, now: Date): Ctx {
  return { root, current: root, vars: new Map(), now, budget: { left: MAX_EXPR_WORK } };
}

/** Evaluates to a value, or undefined for "missing" (which documents omit and arrays turn into null). */
export function evalExpr(expr: Expr, ctx: Ctx): Out {
  switch (expr.kind) {
    case 'const':
      return cloneValue(expr.value);
    case 'path':
      return evalVariable(expr, ctx);
    case 'array':
      spend(ctx, expr.items.length);
      return expr.items.map((item) => evalExpr(item, ctx) ?? null);
    case 'op':
      return expr.run(ctx);
    default: {
      const out: Doc = {};
      for (const [key, sub] of expr.fields) {
        const value = evalExpr(sub, ctx);
        if (value !== undefined) setField(out, key, value);
      }
      return out;
    }
  }
}

function evalVariable(expr: Extract<Expr, { kind: 'path' }>, ctx: Ctx): Out {
  let base: Out;
  if (expr.variable === 'ROOT') base = ctx.root;
  else if (expr.variable === 'CURRENT') base = ctx.current;
  else if (expr.variable === 'REMOVE') return undefined;
  else if (expr.variable === 'NOW') base = new Date(ctx.now.getTime());
  else base = ctx.vars.get(expr.variable);
  if (expr.path.length === 0) return base;
  if (isDoc(base)) return evaluatePath(base, expr.path, 0);
  if (Array.isArray(base)) return evaluateOverArray(base, expr.path, 0);
  return undefined;
}

/**
 * MongoDB's field path evaluation: through documents by name; through an array by applying the rest of the
 * path to each element that is a document (or, recursively, an array), skipping elements where it is missing.
 * Numeric parts are names, never array indexes.
 */
function evaluatePath(doc: Doc, path: string[], index: number): Out {
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
