// Test support for the expression differential tests: one expression evaluated by us and by mingo's $project
// over a generated document, outcomes compared (both refuse, or the same value; missing = missing).
import fc from 'fast-check';
import { Aggregator } from 'mingo';
import { expect } from 'vitest';
import { isPlaybaseError } from '../../errors.js';
import { evaluate, parseExpression } from '../aggregate-expr.js';
import { docArb, sameMapped, scalarArb, show, toMingo } from '../mingo-oracle.test-util.js';
import { type Doc, fromWire, toWire, type Value } from '../values.js';

export type Outcome = { ok: true; value: unknown } | { ok: false; why: string };

export const NOW = new Date(1_700_000_000_000);

export function runOurs(expr: Value, doc: Doc): Outcome {
  try {
    const parsed = parseExpression(fromWire(toWire(expr), { allowDollarKeys: true }), '$project');
    return { ok: true, value: toMingo(evaluate(parsed, doc, NOW)) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, why: `${e.code}: ${e.message}` };
    throw e;
  }
}

export function runMingo(expr: Value, doc: Doc): Outcome {
  try {
    const agg = new Aggregator(
      [{ $project: { _id: 0, r: toMingo(expr) } }] as Record<string, unknown>[],
      {
        variables: { NOW: NOW },
      } as never,
    );
    const out = agg.run([toMingo(doc) as Record<string, unknown>]) as Array<Record<string, unknown>>;
    return { ok: true, value: dropUndefined(out[0]?.r) };
  } catch (e) {
    return { ok: false, why: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

/**
 * mingo keeps fields whose value is missing as undefined properties (the same as absent) and missing array
 * elements as undefined (an array expression turns missing into null, as ours does).
 */
function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : dropUndefined(x)));
  if (v === null || typeof v !== 'object' || v instanceof Date || v instanceof Uint8Array) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => [k, dropUndefined(x)]),
  );
}

export function sameOutcome(a: Outcome, b: Outcome, unordered = false): boolean {
  if (!a.ok || !b.ok) return a.ok === b.ok;
  if (unordered && Array.isArray(a.value) && Array.isArray(b.value)) {
    const key = (x: unknown) => show(x);
    return sameMapped(
      [...a.value].sort((x, y) => (key(x) < key(y) ? -1 : 1)),
      [...b.value].sort((x, y) => (key(x) < key(y) ? -1 : 1)),
    );
  }
  return sameMapped(a.value, b.value);
}

/** Field references and constants as operands: fields a, b, c hold generated values; m is always missing. */
export const operandArb: fc.Arbitrary<Value> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Value>('$a', '$b', '$c', '$a.b', '$m') },
  { weight: 2, arbitrary: scalarArb(true).map((v) => (typeof v === 'string' ? v : v)) },
);

export const exprDocArb = docArb(true, 2);

/**
 * Runs `runs` generated (expression, document) cases; a mismatch is allowed only where `deviation` names a
 * known mingo deviation (docs/query-engine-js.md). Requires at least `minAgree` of the cases to agree outright.
 */
export function checkDifferential(
  exprArb: fc.Arbitrary<Value>,
  opts: {
    runs?: number;
    unordered?: boolean;
    deviation?: (expr: Value, doc: Doc, ours: Outcome, theirs: Outcome) => string | undefined;
    minAgree?: number;
  } = {},
): void {
  let agree = 0;
  let total = 0;
  fc.assert(
    fc.property(exprArb, exprDocArb, (expr, doc) => {
      total++;
      const ours = runOurs(expr, doc);
      const theirs = runMingo(expr, doc);
      if (sameOutcome(ours, theirs, opts.unordered)) {
        agree++;
        return;
      }
      const known = pathDeviation(expr, doc) ?? opts.deviation?.(expr, doc, ours, theirs);
      if (process.env.EXPR_AGREE && known)
        console.log(known, show(expr), show(toMingo(doc)), show(ours), show(theirs));
      if (known === undefined) {
        expect.fail(`expr ${show(expr)} doc ${show(toMingo(doc))}: ours ${show(ours)} mingo ${show(theirs)}`);
      }
    }),
    { numRuns: opts.runs ?? 500 },
  );
  if (process.env.EXPR_AGREE) console.log('agreement', agree / total);
  expect(agree / total).toBeGreaterThanOrEqual(opts.minAgree ?? 0.5);
}

/** A7: "$a.b" over an array skips non-document elements and recurses into nested arrays; mingo keeps them. */
function pathDeviation(expr: Value, doc: Doc): string | undefined {
  return JSON.stringify(toWire(expr)).includes('"$a.b"') && Array.isArray(doc.a) ? 'A7' : undefined;
}

/** True when any value reachable from the expression's operands in this document is of a kind. */
export function touches(doc: Doc, pred: (v: Value) => boolean): boolean {
  const walk = (v: Value | undefined): boolean =>
    v !== undefined &&
    (pred(v) ||
      (Array.isArray(v)
        ? v.some(walk)
        : typeof v === 'object' && v !== null && !(v instanceof Date) && Object.values(v as Doc).some(walk)));
  return walk(doc);
}
