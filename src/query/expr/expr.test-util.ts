// Test support for the expression unit tests: a sample document, a fixed $$NOW, evaluation and error codes.
import { isPlaybaseError } from '../../errors.js';
import { evaluate, parseExpression } from '../aggregate-expr.js';
import { type Doc, fromWire, type Value } from '../values.js';

export const NOW = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 10));
export const DOC: Doc = {
  _id: 1,
  a: 5,
  s: 'héllo',
  arr: [1, 2, 3],
  n: null,
  d: new Date(Date.UTC(2021, 0, 31, 12)),
};

/** Evaluates an expression given as extended JSON over DOC (or another document). */
export function ev(expr: unknown, doc: Doc = DOC): Value | undefined {
  return evaluate(parseExpression(fromWire(expr, { allowDollarKeys: true }), '$project'), doc, NOW);
}

export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code} ${e.message}`;
    throw e;
  }
  return 'no error';
}
