// The aggregation expressions of the pipeline stages: a façade over the expression language (src/query/expr/),
// parsed once per stage and evaluated per document with the pipeline's $$NOW.
import { truthy } from './expr/args.js';
import { withVars } from './expr/core.js';
import { type Expr, evalExpr, newCtx, newScope, parseExpr } from './expr/index.js';
import type { Doc, Value } from './values.js';

export type { Expr } from './expr/index.js';
export { parseFieldPath } from './expr/index.js';

/** Parses an expression; `where` names the stage for error messages. */
export function parseExpression(v: Value, where: string): Expr {
  const scope = newScope(where);
  return parseExpr(v, parseVars.length === 0 ? scope : withVars(scope, parseVars));
}

/**
 * The variables of a $lookup's `let`, seen by every expression of its sub-pipeline: bound while the
 * sub-pipeline is parsed (names) and while it runs over one input document (values). Both are synchronous, so
 * a module-level binding, saved and restored around them, is exact.
 */
let parseVars: string[] = [];
let runVars: Map<string, Value | undefined> = new Map();

export function parsingWithVars<T>(names: string[], body: () => T): T {
  const outer = parseVars;
  parseVars = [...new Set([...outer, ...names])];
  try {
    return body();
  } finally {
    parseVars = outer;
  }
}

/** The variables in scope of the parse under way (a nested $lookup's `let` adds to them). */
export function varsInScope(): string[] {
  return parseVars;
}

export function runningWithVars<T>(values: Map<string, Value | undefined>, body: () => T): T {
  const outer = runVars;
  runVars = new Map([...outer, ...values]);
  try {
    return body();
  } finally {
    runVars = outer;
  }
}

/**
 * Evaluates to a value, or undefined for "missing" (which documents omit and arrays turn into null). `now` is
 * $$NOW: one instant for the whole pipeline, given by its caller (the evaluator never reads the clock).
 */
export function evaluate(expr: Expr, root: Doc, now: Date): Value | undefined {
  // Field paths and constants (most $group keys and accumulator arguments) bind nothing and spend nothing.
  if (expr.kind === 'path' || expr.kind === 'const')
    return evalExpr(expr, { root, current: root, vars: runVars, now, budget: UNUSED });
  const ctx = newCtx(root, now);
  if (runVars.size > 0) ctx.vars = new Map(runVars);
  return evalExpr(expr, ctx);
}

/**
 * The entry point for $match's (and find's) `$expr`, a later item: the expression's value under MongoDB's
 * truthiness (false, null, missing and numeric zero are false). Parse the operand with parseExpression once.
 */
export function evaluateCondition(expr: Expr, root: Doc, now: Date): boolean {
  return truthy(evaluate(expr, root, now));
}

const UNUSED = { left: Number.POSITIVE_INFINITY };
