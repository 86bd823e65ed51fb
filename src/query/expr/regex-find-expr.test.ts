// $regexFind and $regexFindAll: MongoDB's documented examples and the rules of evaluate_regex.cpp (null and
// missing operands, code point indexes, how $regexFindAll steps past empty matches), and their bounds.
import { describe, expect, it } from 'vitest';
import { codeOf, ev } from './expr.test-util.js';

const find = (input: unknown, regex: unknown, options?: string) =>
  ev({ $regexFind: options === undefined ? { input, regex } : { input, regex, options } });
type Match = { match: string; idx: number; captures: Array<string | null> };
const all = (input: unknown, regex: unknown, options?: string) =>
  ev({ $regexFindAll: options === undefined ? { input, regex } : { input, regex, options } }) as Match[];

describe('$regexFind', () => {
  it("answers MongoDB's documented examples", () => {
    expect(find('First lines\nsecond line', 'line')).toEqual({ match: 'line', idx: 6, captures: [] });
    expect(find('Single LINE description.', 'line')).toBeNull();
    expect(find('Single LINE description.', 'line', 'i')).toEqual({ match: 'LINE', idx: 7, captures: [] });
    expect(find('Multiple\nline descriptions', 'lin(e|k)')).toEqual({
      match: 'line',
      idx: 9,
      captures: ['e'],
    });
    expect(find('Multiple\nline descriptions', 'm.*line', 'si')).toEqual({
      match: 'Multiple\nline',
      idx: 0,
      captures: [],
    });
    expect(find('Multiple\nline descriptions', ' # comment\n lin(e|k) ', 'x')).toEqual({
      match: 'line',
      idx: 9,
      captures: ['e'],
    });
    expect(find('ab\ncd', '^c', 'm')).toEqual({ match: 'c', idx: 3, captures: [] });
  });

  it('reports idx in code points and unmatched groups as null, empty ones as ""', () => {
    expect(find('héllo wörld', 'w(ö)')).toEqual({ match: 'wö', idx: 6, captures: ['ö'] });
    expect(find('😀😀a', 'a')).toEqual({ match: 'a', idx: 2, captures: [] });
    expect(find('ab', '(x)?(a)()')).toEqual({ match: 'a', idx: 0, captures: [null, 'a', ''] });
    expect(find('aaa', '(a+?)(a*)')).toEqual({ match: 'aaa', idx: 0, captures: ['a', 'aa'] });
  });

  it('null or missing input or regex → null; field operands; a regex computed per document', () => {
    expect(find(null, 'a')).toBeNull();
    expect(find('$nope', 'a')).toBeNull();
    expect(find('a', null)).toBeNull();
    expect(find('a', '$nope')).toBeNull();
    expect(find('$s', 'l+')).toEqual({ match: 'll', idx: 2, captures: [] });
    expect(find('$s', { $concat: ['(', 'é', ')'] })).toEqual({ match: 'é', idx: 1, captures: ['é'] });
  });
});

describe('$regexFindAll', () => {
  it('lists non-overlapping matches; null input or regex → []', () => {
    expect(all('a1b22c333', '\\d+')).toEqual([
      { match: '1', idx: 1, captures: [] },
      { match: '22', idx: 3, captures: [] },
      { match: '333', idx: 6, captures: [] },
    ]);
    expect(all('x', 'a')).toEqual([]);
    expect(all(null, 'a')).toEqual([]);
    expect(all('a', '$nope')).toEqual([]);
    expect(all('Single LINE line', 'l(in)e', 'i')).toEqual([
      { match: 'LINE', idx: 7, captures: ['IN'] },
      { match: 'line', idx: 12, captures: ['in'] },
    ]);
  });

  it('steps one code point past an empty match and stops at the end of the input, as MongoDB', () => {
    expect(all('', '')).toEqual([{ match: '', idx: 0, captures: [] }]);
    expect(all('ab', 'x*')).toEqual([
      { match: '', idx: 0, captures: [] },
      { match: '', idx: 1, captures: [] },
    ]);
    expect(all('baa', 'a*')).toEqual([
      { match: '', idx: 0, captures: [] },
      { match: 'aa', idx: 1, captures: [] },
    ]);
    expect(all('ab', { $literal: '$' })).toEqual([{ match: '', idx: 2, captures: [] }]);
    expect(all('ab cd', '\\b').map((m) => m.idx)).toEqual([0, 2, 3, 5]);
    expect(all('😀a😀', '(?:)').map((m) => m.idx)).toEqual([0, 1, 2]);
    // ^ and lookbehinds see the text before the search's start: the second search (from 1) cannot use ^.
    expect(all('aaa', '(?:^|a)a').map((m) => m.match)).toEqual(['a', 'aa']);
  });

  it('hostile sizes stay bounded: a million empty matches, a backtracking pattern → 400 QUERY_TOO_LARGE', () => {
    const t = Date.now();
    expect(codeOf(() => all('a'.repeat(2_000_000), ''))).toMatch(/^400 QUERY_TOO_LARGE/);
    expect(codeOf(() => all(`${'a'.repeat(100_000)}`, '(a|aa){1,100}b'))).toMatch(/^400 QUERY_TOO_LARGE/);
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(all('ab'.repeat(10_000), 'b').length).toBe(10_000);
  });
});
