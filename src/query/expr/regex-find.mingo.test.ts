// $regexFind and $regexFindAll against mingo's (JavaScript RegExp) over generated patterns of the subset where
// JavaScript and PCRE agree (regex-gen.test-util.ts) and generated inputs, field operands included.
// Deviations (docs/query-engine-js.md): E3 (a non-string input: mingo answers null or []), R1 (mingo reports
// a capture that matched the empty string as null), R2 (mingo's $regexFindAll searches the rest of the input
// as a new string, so `^` matches again and idx is wrong after the second match).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { sameMapped } from '../mingo-oracle.test-util.js';
import { translateRegex } from '../regex.js';
import { patternArb, subjectArb } from '../regex-gen.test-util.js';
import { findProgramOf } from '../regex-nfa.js';
import { findMatch } from '../regex-pike.js';
import { newStepBudget } from '../regex-vm.js';
import type { Doc, Value } from '../values.js';
import { checkDifferential, type Outcome, operandArb } from './expr-oracle.test-util.js';

const input = fc.oneof(
  { weight: 3, arbitrary: subjectArb as fc.Arbitrary<Value> },
  { weight: 1, arbitrary: operandArb },
);
const options = fc.constantFrom('', 's', 'i');

/** mingo's $regexFindAll never ends on a pattern that matches the empty string: such patterns are left out. */
function matchesEmpty(p: string, o: string): boolean {
  try {
    return findMatch(findProgramOf(translateRegex(p, o)), '', 0, newStepBudget()) !== null;
  } catch {
    return true; // refused by us (\w or \b with i): mingo might loop, and $regexFind compares it already
  }
}

const findArb: fc.Arbitrary<Value> = fc
  .tuple(input, patternArb(), options)
  .map(([s, r, o]) => ({ $regexFind: { input: s, regex: r, options: o } }) as Value);
const findAllArb: fc.Arbitrary<Value> = fc
  .tuple(input, patternArb(), options)
  .filter(([, r, o]) => !matchesEmpty(r, o))
  .map(([s, r, o]) => ({ $regexFindAll: { input: s, regex: r, options: o } }) as Value);

type Match = { match: string; idx: number; captures: Array<string | null> };
const emptyAsNull = (m: Match): Match => ({ ...m, captures: m.captures.map((c) => (c === '' ? null : c)) });

function deviation(expr: Value, _doc: Doc, ours: Outcome, theirs: Outcome): string | undefined {
  if (ours.ok !== theirs.ok) return 'E3';
  if (!ours.ok || !theirs.ok) return undefined;
  const spec = Object.values(expr as Doc)[0] as { regex: string };
  if (Array.isArray(ours.value) && Array.isArray(theirs.value)) {
    const a = (ours.value as Match[]).map(emptyAsNull);
    const b = theirs.value as Match[];
    if (sameMapped(a, b)) return 'R1';
    const strip = (ms: Match[]) => ms.map(({ match, captures }) => ({ match, captures }));
    if (spec.regex.startsWith('^') || sameMapped(strip(a), strip(b))) return 'R2';
    return undefined;
  }
  if (ours.value !== null && sameMapped(emptyAsNull(ours.value as Match), theirs.value)) return 'R1';
  return undefined;
}

describe('$regexFind / $regexFindAll against mingo', () => {
  it('$regexFind', () => {
    checkDifferential(findArb, { runs: 1500, deviation, minAgree: 0.6 });
  });
  it('$regexFindAll', () => {
    checkDifferential(findAllArb, { runs: 1500, deviation, minAgree: 0.6 });
  });
});
