// Code point sets and zero-width position checks of the linear regex matcher (regex-nfa.ts, regex-vm.ts).
//
// Positions are UTF-16 indexes of the subject; a step reads one code point (a surrogate pair is one, a lone
// surrogate is itself), as V8 does with the u flag.

/** A set of code points: ranges sorted and merged, plus a bitmap of the ASCII part for the common case. */
export interface CharSet {
  ascii: Uint8Array;
  /** Flat [lo0, hi0, lo1, hi1, ...] of the members at 0x80 and above, sorted and disjoint. */
  wide: Int32Array;
  negate: boolean;
}

/** The end of the subject (in a lookahead) or its start (in a lookbehind). */
export const EDGE = 'edge';
export type LookStep = CharSet | typeof EDGE;

/** A lookaround over a finite set of short sequences: `^`, `$`, `(?<=\n)`, `(?!$)`, `(?=\n?$)`, `\b` parts. */
export interface Look {
  ahead: boolean;
  negate: boolean;
  alts: LookStep[][];
}

export function makeSet(ranges: Array<[number, number]>, negate: boolean): CharSet {
  const ascii = new Uint8Array(128);
  const sorted = ranges.map(([lo, hi]): [number, number] => [lo, hi]).sort((a, b) => a[0] - b[0]);
  const wide: number[] = [];
  for (const [lo, hi] of sorted) {
    for (let c = lo; c <= Math.min(hi, 0x7f); c++) ascii[c] = 1;
    if (hi < 0x80) continue;
    const from = Math.max(lo, 0x80);
    const last = wide.length - 1;
    if (last > 0 && from <= wide[last]! + 1) wide[last] = Math.max(wide[last]!, hi);
    else wide.push(from, hi);
  }
  return { ascii, wide: Int32Array.from(wide), negate };
}

export function setHas(set: CharSet, cp: number): boolean {
  if (cp < 0x80) return (set.ascii[cp] === 1) !== set.negate;
  const wide = set.wide;
  let lo = 0;
  let hi = (wide.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < wide[2 * mid]!) hi = mid - 1;
    else if (cp > wide[2 * mid + 1]!) lo = mid + 1;
    else return !set.negate;
  }
  return set.negate;
}

/** The code point that ends just before `pos` (a pair read backwards is one code point, as it is forwards). */
function codePointBefore(s: string, pos: number): number {
  const low = s.charCodeAt(pos - 1);
  if (low >= 0xdc00 && low <= 0xdfff && pos >= 2) {
    const high = s.charCodeAt(pos - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/** Whether a lookaround holds at `pos`; each alternative is a few steps, so this costs O(1). */
export function lookHolds(look: Look, s: string, pos: number): boolean {
  let found = false;
  for (const alt of look.alts) {
    if (look.ahead ? aheadHolds(alt, s, pos) : behindHolds(alt, s, pos)) {
      found = true;
      break;
    }
  }
  return found !== look.negate;
}

function aheadHolds(steps: LookStep[], s: string, pos: number): boolean {
  let p = pos;
  for (const step of steps) {
    if (step === EDGE) {
      if (p !== s.length) return false;
      continue;
    }
    if (p >= s.length) return false;
    const cp = s.codePointAt(p)!;
    if (!setHas(step, cp)) return false;
    p += cp > 0xffff ? 2 : 1;
  }
  return true;
}

function behindHolds(steps: LookStep[], s: string, pos: number): boolean {
  let p = pos;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step === EDGE) {
      if (p !== 0) return false;
      continue;
    }
    if (p === 0) return false;
    const cp = codePointBefore(s, p);
    if (!setHas(step, cp)) return false;
    p -= cp > 0xffff ? 2 : 1;
  }
  return true;
}

/** JavaScript's \s with the u flag: WhiteSpace and LineTerminator. */
export const JS_SPACE: Array<[number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
export const JS_DIGIT: Array<[number, number]> = [[0x30, 0x39]];
export const JS_WORD: Array<[number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** What `.` excludes without the s flag: the line terminators. */
export const JS_LINE_END: Array<[number, number]> = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** The complement of sorted-or-not ranges within 0..0x10FFFF. */
export function complement(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}
