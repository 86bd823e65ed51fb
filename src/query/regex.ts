// $regex: the subset of MongoDB's PCRE syntax that PostgreSQL and JavaScript can match with the same meaning.
//
// A pattern is parsed here and written twice, for PostgreSQL (ARE, `~`) and for JavaScript (RegExp with the
// u flag), using only constructs whose meaning is the same in both and in PCRE2 (UTF mode, newline = LF):
// `.` becomes [^\n] unless s; `$` becomes "end, or before a final newline" unless m; m-mode ^ and $ become
// lookarounds on \n; \d \w \s become their ASCII classes; i expands letters to both cases (k and s also to
// U+212A and U+017F, as PCRE's caseless sets do). The JavaScript keeps capture groups and lazy marks
// ($regexFind reports them); the SQL drops them (`~` only asks yes or no). Anything else (backreferences, lookarounds, named groups, inline flags,
// Unicode properties, possessive quantifiers, counts over 255, non-ASCII letters under i) is refused with
// QUERY_BAD_REGEX rather than risk a different answer.
//
// Complexity is bounded before either engine sees a pattern (issue 20: `(((a{100}){100}){100})` froze the
// embedded store): groups nest at most MAX_REGEX_NESTING deep, and the pattern's expanded size (a character
// or an assertion counts 1, a class 1 per 32 ranges, a quantified atom its size times its largest count, so
// nested counts multiply, as when PostgreSQL copies them into its automaton) is at most MAX_REGEX_SIZE.
import { queryErrors } from './errors.js';
import { programOf } from './regex-nfa.js';
import { attachStepBudget } from './regex-vm.js';

/** Deepest nesting of groups. */
export const MAX_REGEX_NESTING = 16;
/** Largest expanded size: `[a-z]{255}` is 255, `(ab){10}` 20, `(((a{100}){100}){100})` 1,000,000. */
const MAX_REGEX_SIZE = 5000;

export interface TranslatedRegex {
  pattern: string;
  options: string;
  /** PostgreSQL ARE pattern for the `~` operator. */
  sql: string;
  /** JavaScript source, compiled with the u flag only. */
  js: string;
}

const WORD = '[0-9A-Za-z_]';
const CLASSES: Record<string, string> = { d: '0-9', w: '0-9A-Za-z_', s: ' \\t\\n\\u000B\\f\\r' };
const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, e: 27, a: 7 };
const X_SPACE = new Set([' ', '\t', '\n', '\u000B', '\f', '\r']);

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

/** Both outputs at once: [sql, js]. */
type Out = [string, string];
/** A parsed part and its expanded size (see MAX_REGEX_SIZE). */
interface Piece {
  out: Out;
  size: number;
}

export function translateRegex(pattern: string, options: string): TranslatedRegex {
  const flags: Flags = { i: false, m: false, s: false, x: false };
  for (const ch of options) {
    if (!(ch in flags)) throw queryErrors.badRegex(`option "${ch}" (supported: i, m, s, x)`);
    flags[ch as keyof Flags] = true;
  }
  if (pattern.includes('\u0000')) throw queryErrors.badRegex('the pattern contains NUL');
  const parser = new RegexParser([...pattern], flags);
  const [sql, js] = parser.parseAll();
  try {
    new RegExp(js, 'u');
  } catch {
    throw queryErrors.badRegex(`invalid pattern /${pattern}/`);
  }
  const translated = { pattern, options, sql, js };
  try {
    programOf(translated);
    attachStepBudget(translated);
  } catch {
    // Only a pattern the linear matcher cannot read (a gap between it and this parser): refused, never a 500.
    throw queryErrors.badRegex(`the pattern /${pattern}/ cannot be evaluated by the linear-time matcher`);
  }
  return translated;
}

class RegexParser {
  private pos = 0;

  constructor(
    private readonly src: string[],
    private readonly flags: Flags,
  ) {}

  parseAll(): Out {
    const { out, size } = this.parseAlternation(0);
    if (this.pos < this.src.length) throw queryErrors.badRegex('unmatched )');
    if (size > MAX_REGEX_SIZE) {
      throw queryErrors.badRegex(
        `the pattern is too complex: it expands to more than ${MAX_REGEX_SIZE} elements (nested repetition counts multiply)`,
      );
    }
    return out;
  }

  private parseAlternation(depth: number): Piece {
    const branches: Piece[] = [this.parseSequence(depth)];
    while (this.peek() === '|') {
      this.pos++;
      branches.push(this.parseSequence(depth));
    }
    return {
      out: [branches.map((b) => b.out[0]).join('|'), branches.map((b) => b.out[1]).join('|')],
      size: branches.reduce((sum, b) => sum + b.size, 0),
    };
  }

  private parseSequence(depth: number): Piece {
    const out: Out = ['', ''];
    let size = 0;
    for (;;) {
      this.skipExtended();
      const ch = this.peek();
      if (ch === undefined || ch === '|' || ch === ')') return { out, size };
      const [atom, quantifiable] = this.parseAtom(depth);
      const [q, lazy] = this.parseQuantifier();
      if (q !== '' && !quantifiable) throw queryErrors.badRegex('a quantifier follows nothing repeatable');
      out[0] += atom.out[0] + q;
      out[1] += atom.out[1] + q + (lazy ? '?' : '');
      size += atom.size * largestCount(q);
    }
  }

  private skipExtended(): void {
    if (!this.flags.x) return;
    for (;;) {
      const ch = this.peek();
      if (ch !== undefined && X_SPACE.has(ch)) this.pos++;
      else if (ch === '#') {
        while (this.peek() !== undefined && this.peek() !== '\n') this.pos++;
      } else if (ch !== undefined && /[\u0085\u200e\u200f\u2028\u2029]/.test(ch)) {
        throw queryErrors.badRegex('Unicode pattern white space with the x option');
      } else return;
    }
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  /** Returns the atom and whether a quantifier may follow it. */
  private parseAtom(depth: number): [Piece, boolean] {
    const ch = this.src[this.pos++]!;
    switch (ch) {
      case '(':
        return [this.parseGroup(depth + 1), true];
      case '[':
        return [this.parseClass(), true];
      default: {
        const [out, quantifiable] = this.parseSimpleAtom(ch);
        return [{ out, size: 1 }, quantifiable];
      }
    }
  }

  /** An atom other than a group or a class: one character, a shorthand class or an assertion. */
  private parseSimpleAtom(ch: string): [Out, boolean] {
    switch (ch) {
      case '.':
        return [this.flags.s ? ['.', '[\\s\\S]'] : ['[^\\n]', '[^\\n]'], true];
      case '^':
        return [this.flags.m ? both('(?:^|(?<=\\n)(?!$))') : ['^', '^'], false];
      case '$':
        return [both(this.flags.m ? '(?=\\n|$)' : '(?=\\n?$)'), false];
      case '\\':
        return this.parseEscape();
      case '*':
      case '+':
      case '?':
        throw queryErrors.badRegex(`quantifier ${ch} follows nothing`);
      case '{':
        if (this.quantifierAt(this.pos - 1) !== null)
          throw queryErrors.badRegex('quantifier { follows nothing');
        return [this.literal(ch.codePointAt(0)!), true];
      default:
        return [this.literal(ch.codePointAt(0)!), true];
    }
  }

  private parseGroup(depth: number): Piece {
    // Checked before descending, so the recursion of this parser is bounded too.
    if (depth > MAX_REGEX_NESTING)
      throw queryErrors.badRegex(`the pattern is too complex: groups nest deeper than ${MAX_REGEX_NESTING}`);
    const capture = this.peek() !== '?';
    if (!capture) {
      if (this.peek(1) !== ':') throw queryErrors.badRegex('only (...) and (?:...) groups are supported');
      this.pos += 2;
    }
    const inner = this.parseAlternation(depth);
    if (this.src[this.pos++] !== ')') throw queryErrors.badRegex('missing )');
    // JavaScript keeps the capture groups (numbered as in the pattern) for $regexFind; SQL never needs them.
    return {
      out: [`(?:${inner.out[0]})`, capture ? `(${inner.out[1]})` : `(?:${inner.out[1]})`],
      size: inner.size,
    };
  }

  private parseEscape(): [Out, boolean] {
    const ch = this.src[this.pos++];
    if (ch === undefined) throw queryErrors.badRegex('trailing backslash');
    const lower = ch.toLowerCase();
    if (lower in CLASSES) {
      if (this.flags.i && lower === 'w') throw queryErrors.badRegex('\\w with the i option');
      const neg = ch !== lower;
      const cls = `[${neg ? '^' : ''}${CLASSES[lower]}]`;
      return [[cls, cls], true];
    }
    if (ch === 'b' || ch === 'B') {
      if (this.flags.i) throw queryErrors.badRegex('\\b with the i option');
      const at = `(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD})`;
      const notAt = `(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD})`;
      return [both(`(?:${ch === 'b' ? at : notAt})`), false];
    }
    if (ch === 'A') return [['^', '^'], false];
    if (ch === 'z') return [['$', '$'], false];
    if (ch === 'Z') return [both('(?=\\n?$)'), false];
    return [this.literal(this.escapedCodePoint(ch)), true];
  }

  /** The code point of an escape that stands for one character, or a 400. */
  private escapedCodePoint(ch: string): number {
    if (ch in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[ch]!;
    if (ch === 'x') return this.parseHexEscape();
    if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e ]$/.test(ch)) return ch.codePointAt(0)!;
    throw queryErrors.badRegex(`escape \\${ch} is not supported`);
  }

  private parseHexEscape(): number {
    let hex = '';
    if (this.peek() === '{') {
      const end = this.src.indexOf('}', this.pos);
      if (end < 0) throw queryErrors.badRegex('unterminated \\x{');
      hex = this.src.slice(this.pos + 1, end).join('');
      this.pos = end + 1;
    } else {
      hex = this.src.slice(this.pos, this.pos + 2).join('');
      this.pos += 2;
    }
    if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || (this.peek(-1) !== '}' && hex.length !== 2)) {
      throw queryErrors.badRegex('\\x needs two hex digits or \\x{...}');
    }
    const cp = Number.parseInt(hex, 16);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      throw queryErrors.badRegex('bad \\x code point');
    return cp;
  }

  private parseClass(): Piece {
    const negate = this.peek() === '^';
    if (negate) this.pos++;
    const ranges: Array<[number, number]> = [];
    const extras: string[] = [];
    let first = true;
    for (;;) {
      const ch = this.src[this.pos++];
      if (ch === undefined) throw queryErrors.badRegex('missing ]');
      if (ch === ']' && !first) break;
      first = false;
      if (ch === '[' && this.peek() === ':') throw queryErrors.badRegex('POSIX classes are not supported');
      let lo: number;
      if (ch === '\\') {
        const esc = this.src[this.pos++];
        if (esc === undefined) throw queryErrors.badRegex('missing ]');
        if (esc === 'd' || esc === 's' || (esc === 'w' && !this.flags.i)) {
          extras.push(CLASSES[esc]!);
          continue;
        }
        if (esc === 'b') throw queryErrors.badRegex('\\b in a class is not supported');
        lo = this.escapedCodePoint(esc);
      } else lo = ch.codePointAt(0)!;
      let hi = lo;
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.pos++;
        const end = this.src[this.pos++]!;
        hi = end === '\\' ? this.escapedCodePoint(this.src[this.pos++] ?? '') : end.codePointAt(0)!;
        if (hi < lo) throw queryErrors.badRegex('range out of order in a class');
      }
      ranges.push([lo, hi]);
    }
    const closed = this.flags.i ? caseClose(ranges) : ranges;
    const body: Out[] = closed.map(([lo, hi]) =>
      lo === hi ? cp(lo) : [`${cp(lo)[0]}-${cp(hi)[0]}`, `${cp(lo)[1]}-${cp(hi)[1]}`],
    );
    const sqlBody = body.map((b) => b[0]).join('') + extras.join('');
    const jsBody = body.map((b) => b[1]).join('') + extras.join('');
    if (sqlBody === '') throw queryErrors.badRegex('empty class');
    return {
      out: [`[${negate ? '^' : ''}${sqlBody}]`, `[${negate ? '^' : ''}${jsBody}]`],
      // A class is one element per 32 ranges: a few letters with their cases are one, 100,000 ranges are not.
      size: 1 + Math.floor((closed.length + extras.length) / 32),
    };
  }

  /** Reads a quantifier after an atom ('' if none) and whether it is lazy; possessive ones are refused. */
  private parseQuantifier(): [string, boolean] {
    this.skipExtended();
    const ch = this.peek();
    let q = '';
    if (ch === '*' || ch === '+' || ch === '?') {
      q = ch;
      this.pos++;
    } else if (ch === '{') {
      const found = this.quantifierAt(this.pos);
      if (found === null) return ['', false];
      q = found.text;
      this.pos = found.end;
    } else return ['', false];
    const lazy = this.peek() === '?';
    if (lazy) this.pos++;
    else if (this.peek() === '+') throw queryErrors.badRegex('possessive quantifiers are not supported');
    const next = this.peek();
    if (
      next === '*' ||
      next === '+' ||
      next === '?' ||
      (next === '{' && this.quantifierAt(this.pos) !== null)
    ) {
      throw queryErrors.badRegex('a quantifier follows a quantifier');
    }
    return [q, lazy];
  }

  private quantifierAt(at: number): { text: string; end: number } | null {
    const rest = this.src.slice(at, at + 16).join('');
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[3] === undefined || m[3] === '' ? undefined : Number(m[3]);
    if (min > 255 || (max !== undefined && max > 255)) throw queryErrors.badRegex('repeat counts above 255');
    if (max !== undefined && max < min) throw queryErrors.badRegex('{n,m} with m < n');
    return { text: m[0], end: at + [...m[0]].length };
  }

  private literal(code: number): Out {
    if (!this.flags.i) return cp(code);
    const variants = caseVariants(code);
    if (variants.length === 1) return cp(code);
    const [sql, js] = variants.map(cp).reduce<Out>((acc, v) => [acc[0] + v[0], acc[1] + v[1]], ['', '']);
    return [`[${sql}]`, `[${js}]`];
  }
}

/** How many copies of its atom a quantifier may need: its largest count (or the least plus one if open). */
function largestCount(q: string): number {
  const m = /^\{(\d+)(,(\d*))?\}$/.exec(q);
  if (m === null) return 1;
  if (m[2] === undefined) return Math.max(1, Number(m[1]));
  return m[3] === '' ? Number(m[1]) + 1 : Math.max(1, Number(m[3]));
}

function both(s: string): Out {
  return [s, s];
}

/** One code point, escaped for both dialects (inside or outside a class). */
function cp(code: number): Out {
  const ch = String.fromCodePoint(code);
  if (/^[0-9A-Za-z]$/.test(ch)) return [ch, ch];
  const hex = code.toString(16).toUpperCase();
  const sql = code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
  return [sql, `\\u{${hex}}`];
}

/** PCRE2's caseless set of a character; refuses non-ASCII characters that have other cases. */
function caseVariants(code: number): number[] {
  const ch = String.fromCodePoint(code);
  if (code < 0x80) {
    if (!/[A-Za-z]/.test(ch)) return [code];
    const lower = ch.toLowerCase();
    const set = [lower.codePointAt(0)!, ch.toUpperCase().codePointAt(0)!];
    if (lower === 'k') set.push(0x212a);
    if (lower === 's') set.push(0x17f);
    return set;
  }
  if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch || code === 0x212a || code === 0x17f) {
    throw queryErrors.badRegex('non-ASCII letters with the i option');
  }
  return [code];
}

function caseClose(ranges: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of ranges) {
    out.push([lo, hi]);
    if (hi >= 0x80) {
      for (let c = Math.max(lo, 0x80); c <= Math.min(hi, 0x2200); c++) caseVariants(c);
      if (hi > 0x2200 && lo <= 0x10ffff)
        throw queryErrors.badRegex('wide non-ASCII ranges with the i option');
    }
    for (let c = lo; c <= Math.min(hi, 0x7f); c++) {
      for (const v of caseVariants(c)) if (v !== c) out.push([v, v]);
    }
  }
  return out;
}
