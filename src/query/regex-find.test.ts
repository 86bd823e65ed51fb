// The Pike VM of $regexFind (regex-pike.ts) against V8's backtracking RegExp on the subset where V8 and PCRE2
// report the same match and captures (regex-gen.test-util.ts), from every start position; then PCRE's answers
// pinned where they differ from V8's, and the step budget.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { translateRegex } from './regex.js';
import { patternArb, subjectArb } from './regex-gen.test-util.js';
import { findProgramOf, programOf } from './regex-nfa.js';
import { findMatch } from './regex-pike.js';
import { newStepBudget, runProgram } from './regex-vm.js';

type Found = { index: number; groups: Array<string | null> } | null;

function ours(pattern: string, options: string, s: string, from = 0): Found {
  const m = findMatch(findProgramOf(translateRegex(pattern, options)), s, from, newStepBudget());
  if (m === null) return null;
  const groups: Array<string | null> = [];
  for (let g = 0; g < m.length; g += 2) groups.push(m[g]! < 0 ? null : s.slice(m[g]!, m[g + 1]!));
  return { index: m[0]!, groups };
}

/** V8 tried at each code point boundary from `from` (sticky), the first that matches. */
function v8(pattern: string, options: string, s: string, from = 0): Found {
  const re = new RegExp(translateRegex(pattern, options).js, 'uy');
  for (let i = from; i <= s.length; i += (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (m !== null) return { index: m.index, groups: [...m].map((g) => g ?? null) };
  }
  return null;
}

describe('$regexFind matcher: leftmost-first match and captures in linear time', () => {
  it('agrees with V8 on generated patterns and subjects, from every start (and the yes/no matcher too)', () => {
    let matched = 0;
    fc.assert(
      fc.property(patternArb(3, true), subjectArb, fc.constantFrom('', 'm', 's'), (p, s, o) => {
        const yes = runProgram(programOf(translateRegex(p, o)), s, newStepBudget());
        expect(yes, `yes/no /${p}/${o} on ${JSON.stringify(s)}`).toBe(v8(p, o, s) !== null);
        for (let from = 0; from <= s.length; from++) {
          const a = ours(p, o, s, from);
          expect(a, `/${p}/${o} on ${JSON.stringify(s)} from ${from}`).toEqual(v8(p, o, s, from));
          if (a !== null) matched++;
        }
      }),
      { numRuns: 2000 },
    );
    expect(matched).toBeGreaterThan(2000);
  });

  it('prefers as PCRE does: leftmost, then alternatives in order, greedy longest, lazy shortest', () => {
    expect(ours('(a|ab)(c|bcd)(d*)', '', 'abcd')).toEqual({ index: 0, groups: ['abcd', 'a', 'bcd', ''] });
    expect(ours('(a+?)(a*)', '', 'xaaa')).toEqual({ index: 1, groups: ['aaa', 'a', 'aa'] });
    expect(ours('(a+)(a*)', '', 'aaa')).toEqual({ index: 0, groups: ['aaa', 'aaa', ''] });
    expect(ours('a{2,3}?', '', 'aaaa')).toEqual({ index: 0, groups: ['aa'] });
    expect(ours('(x)?(b)', '', 'ab')).toEqual({ index: 1, groups: ['b', null, 'b'] });
    expect(ours('(?:(a)|b)+', '', 'ab')).toEqual({ index: 0, groups: ['ab', 'a'] });
    expect(ours('x', '', 'ab')).toBeNull();
  });

  it('pins PCRE where V8 differs: captures kept across iterations, an empty iteration ends the loop', () => {
    // V8: ["ab", undefined] (captures reset per iteration); PCRE keeps the last value.
    expect(ours('(?:(a)|b)+', '', 'ab')!.groups).toEqual(['ab', 'a']);
    // V8: "aa" (an empty iteration fails and the next alternative is tried); PCRE stops at the empty one.
    expect(ours('(|a)*', '', 'aa')).toEqual({ index: 0, groups: ['', ''] });
    expect(ours('(a*)*', '', 'b')).toEqual({ index: 0, groups: ['', ''] });
    expect(ours('(a*)+', '', 'b')).toEqual({ index: 0, groups: ['', ''] });
    expect(ours('(a|b)*?c', '', 'abc')).toEqual({ index: 0, groups: ['abc', 'b'] });
  });

  it('a state the last step visited is tried again after skipping ahead (both matchers)', () => {
    const tr = translateRegex('(?:\\Ba)*\\Bx', '');
    expect(runProgram(programOf(tr), 'ba bx', newStepBudget())).toBe(true);
    expect(ours('(?:\\Ba)*\\Bx', '', 'ba bx')).toEqual({ index: 4, groups: ['x'] });
  });

  it('reads lookbehinds and ^ from the whole subject when starting later', () => {
    expect(ours('^a', '', 'aa', 1)).toBeNull();
    expect(ours('^a', 'm', 'a\na', 1)).toEqual({ index: 2, groups: ['a'] });
    expect(ours('\\bb', '', 'ab b', 1)).toEqual({ index: 3, groups: ['b'] });
    expect(ours('a$', '', 'ba\n')).toEqual({ index: 1, groups: ['a'] });
    expect(ours('😀(.)', '', 'x😀é')).toEqual({ index: 1, groups: ['😀é', 'é'] });
  });

  it('answers a backtracking worst case at once and stops runaway work with QUERY_TOO_LARGE', () => {
    const s = `${'a'.repeat(30)}!`;
    expect(ours('^(a|a)*$', '', s)).toBeNull();
    expect(ours('(a*)*b', '', s)).toBeNull();
    const big = 'a'.repeat(200_000);
    let code = '';
    try {
      findMatch(findProgramOf(translateRegex('(a|aa){1,200}b', '')), big, 0, newStepBudget());
    } catch (e) {
      code = isPlaybaseError(e) ? e.code : String(e);
    }
    expect(code).toBe('QUERY_TOO_LARGE');
  });
});
