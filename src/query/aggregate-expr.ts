// The aggregation expressions of the pipeline stages: a façade over the expression language (src/query/expr/),
// parsed once per stage and evaluated per document with the pipeline's $$NOW.
import { truthy } from './expr/args.js';
import { type Expr, evalExpr, newCtx, newScope, parseExpr } from './expr/index.js';
import type { Doc, Value } from './values.js';

export type { Expr } from './expr/index.js';
export { parseFieldPath } from './expr/index.js';

/** Parses an expression; `where` names the stage for error messages. */
export function parseExpression(v: Value, where: string): Expr {
  return parseExpr(v, newScope(where));
}

/**
 * Evaluates to a value, or undefined for "missing" (which documents omit and arrays turn into null). `now` is
 * $$NOW: one instant for the whole pipeline, given by its caller (the evaluator never reads the clock).
 */
export function evaluate(expr: Expr, root: Doc, now: Date): Value | undefined {
  // Field paths and constants (most $group keys and accumulator arguments) bind nothing and spend nothing.
  if (expr.kind === 'path' || expr.kind === 'const')
    return evalExpr(expr, { root, current: root, vars: NO_VARS, now, budget: UNUSED });
  return evalExpr(expr, newCtx(root, now));
}

/**
 * The entry point for $match's (and find's) `$expr`, a later item: the expression's value under MongoDB's
 * truthiness (false, null, missing and numeric zero are false). Parse the operand with parseExpression once.
 */
export function evaluateCondition(expr: Expr, root: Doc, now: Date): boolean {
  return truthy(evaluate(expr, root, now));
}

/** Never written: a path or constant binds no variable. */
const NO_VARS = new Map<string, Value | undefined>();
const UNUSED = { left: Number.POSITIVE_INFINITY };
