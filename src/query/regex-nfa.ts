// Compiles the JavaScript that regex.ts writes for a $regex into a Thompson NFA program for regex-vm.ts.
//
// V8's RegExp backtracks: `.*x` over 100,000 characters took 12 s and `^(a|a)*$` doubles per character
// (issue 20), so the server never runs it on stored data. This reads exactly the subset regex.ts emits, with
// JavaScript's meaning under the u flag: code points (`\u{h}`, `\uhhhh`, `\t\n\v\f\r`, bare characters), `.`,
// classes with ranges and `\d\D\s\S\w\W`, `(...)` (capture groups, numbered in order), `(?:...)`, `|`,
// `* + ? {n} {n,} {n,m}` and their lazy forms, `^`, `$`, and lookarounds whose body is a finite set of short sequences (`(?<=\n)`,
// `(?!$)`, `(?=\n?$)`, the parts of `\b`), which become O(1) position checks. Anything else throws, so a
// change in regex.ts that this does not read is a 400 at parse time (translateRegex compiles both).

import { buildProgram, type Node, OP_CHAR, OP_JMP, OP_LOOK, OP_SPLIT, type Program } from './regex-build.js';
import {
  type CharSet,
  complement,
  EDGE,
  JS_DIGIT,
  JS_LINE_END,
  JS_SPACE,
  JS_WORD,
  type LookStep,
  makeSet,
} from './regex-sets.js';

export { OP_CHAR, OP_JMP, OP_LOOK, OP_SPLIT, type Program };

type Ranges = Array<[number, number]>;

/** Deeper than regex.ts ever writes (16 groups, each with at most one lookaround inside). */
const MAX_DEPTH = 64;
/** Most sequences one lookaround body may stand for. */
const MAX_LOOK_ALTS = 64;
const SHORTHANDS: Record<string, Ranges> = { d: JS_DIGIT, s: JS_SPACE, w: JS_WORD };
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

/** Most capture groups a pattern may have for $regexFind/$regexFindAll (each costs every thread 2 slots). */
export const MAX_FIND_GROUPS = 100;

function compile(js: string, captures: boolean): Program {
  const parser = new JsRegexParser([...js]);
  const tree = parser.parseAll();
  if (captures && parser.groups > MAX_FIND_GROUPS) throw unsupported('more capture groups');
  return buildProgram(tree, captures, parser.groups);
}

const programs = new WeakMap<object, Program>();
const findPrograms = new WeakMap<object, Program>();

/** The yes/no program of a translated regex, compiled once per TranslatedRegex. */
export function programOf(regex: { js: string }): Program {
  let prog = programs.get(regex);
  if (prog === undefined) {
    prog = compile(regex.js, false);
    programs.set(regex, prog);
  }
  return prog;
}

/** The program with capture slots and PCRE's preference order (regex-pike.ts), compiled once per regex. */
export function findProgramOf(regex: { js: string }): Program {
  let prog = findPrograms.get(regex);
  if (prog === undefined) {
    prog = compile(regex.js, true);
    findPrograms.set(regex, prog);
  }
  return prog;
}

function unsupported(what: string): Error {
  return new Error(`regex-nfa: ${what} is outside the subset regex.ts writes`);
}

class JsRegexParser {
  private pos = 0;
  /** Capture groups seen so far (a group's number is its opening parenthesis's rank). */
  groups = 0;

  constructor(private readonly src: string[]) {}

  parseAll(): Node {
    const node = this.parseAlt(0);
    if (this.pos < this.src.length) throw unsupported('an unmatched )');
    return node;
  }

  private parseAlt(depth: number): Node {
    if (depth > MAX_DEPTH) throw unsupported('deep nesting');
    const items = [this.parseSeq(depth)];
    while (this.src[this.pos] === '|') {
      this.pos++;
      items.push(this.parseSeq(depth));
    }
    return items.length === 1 ? items[0]! : { k: 'alt', items };
  }

  private parseSeq(depth: number): Node {
    const items: Node[] = [];
    for (;;) {
      const ch = this.src[this.pos];
      if (ch === undefined || ch === '|' || ch === ')') break;
      const atom = this.parseAtom(depth);
      items.push(this.parseQuantifier(atom));
    }
    return items.length === 1 ? items[0]! : { k: 'seq', items };
  }

  private parseAtom(depth: number): Node {
    const ch = this.src[this.pos++]!;
    switch (ch) {
      case '(':
        return this.parseGroup(depth + 1);
      case '[':
        return { k: 'set', set: this.parseClass() };
      case '^':
        return { k: 'look', look: { ahead: false, negate: false, alts: [[EDGE]] } };
      case '$':
        return { k: 'look', look: { ahead: true, negate: false, alts: [[EDGE]] } };
      case '.':
        return { k: 'set', set: makeSet(JS_LINE_END, true) };
      case '\\': {
        const short = this.shorthand();
        if (short !== undefined) return { k: 'set', set: makeSet(short, false) };
        const cp = this.escapedCodePoint();
        return { k: 'set', set: makeSet([[cp, cp]], false) };
      }
      default:
        if ('*+?{}])'.includes(ch)) throw unsupported(`a bare ${ch}`);
        return { k: 'set', set: makeSet([[ch.codePointAt(0)!, ch.codePointAt(0)!]], false) };
    }
  }

  private parseGroup(depth: number): Node {
    let look: { ahead: boolean; negate: boolean } | undefined;
    let index = 0;
    if (this.src[this.pos] !== '?') index = ++this.groups;
    else {
      const head = this.src.slice(this.pos, this.pos + 3).join('');
      if (head.startsWith('?:')) this.pos += 2;
      else if (head.startsWith('?=') || head.startsWith('?!')) {
        look = { ahead: true, negate: head[1] === '!' };
        this.pos += 2;
      } else if (head === '?<=' || head === '?<!') {
        look = { ahead: false, negate: head[2] === '!' };
        this.pos += 3;
      } else throw unsupported(`the group (${head}`);
    }
    const inner = this.parseAlt(depth);
    if (this.src[this.pos++] !== ')') throw unsupported('a missing )');
    if (index > 0) return { k: 'cap', index, item: inner };
    if (look === undefined) return inner;
    return { k: 'look', look: { ...look, alts: lookSequences(inner, look.ahead) } };
  }

  /** \d \D \s \S \w \W after a backslash (consumed), or undefined (nothing consumed). */
  private shorthand(): Ranges | undefined {
    const ch = this.src[this.pos];
    if (ch === undefined) return undefined;
    const ranges = SHORTHANDS[ch.toLowerCase()];
    if (ranges === undefined) return undefined;
    this.pos++;
    return ch === ch.toLowerCase() ? ranges : complement(ranges);
  }

  /** The code point of an escape after its backslash: \u{h}, \uhhhh, a control escape or a syntax char. */
  private escapedCodePoint(): number {
    const ch = this.src[this.pos++];
    if (ch === undefined) throw unsupported('a trailing backslash');
    if (ch in CONTROL_ESCAPES) return CONTROL_ESCAPES[ch]!;
    if (ch === 'u') {
      const rest = this.src.slice(this.pos, this.pos + 9).join('');
      const m = /^\{([0-9A-Fa-f]{1,6})\}|^([0-9A-Fa-f]{4})/.exec(rest);
      if (m === null) throw unsupported('a \\u escape without hex digits');
      this.pos += m[0].length;
      return Number.parseInt(m[1] ?? m[2]!, 16);
    }
    if ('^$\\.*+?()[]{}|/-'.includes(ch)) return ch.codePointAt(0)!;
    throw unsupported(`the escape \\${ch}`);
  }

  private parseClass(): CharSet {
    const negate = this.src[this.pos] === '^';
    if (negate) this.pos++;
    const ranges: Ranges = [];
    for (;;) {
      const ch = this.src[this.pos];
      if (ch === undefined) throw unsupported('a missing ]');
      if (ch === ']') break;
      const lo = this.classAtom();
      if (typeof lo !== 'number') {
        ranges.push(...lo);
        continue;
      }
      if (this.src[this.pos] === '-' && this.src[this.pos + 1] !== ']') {
        this.pos++;
        const hi = this.classAtom();
        if (typeof hi !== 'number' || hi < lo) throw unsupported('a bad class range');
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    this.pos++;
    return makeSet(ranges, negate);
  }

  /** One code point of a class, or the ranges of a shorthand in it. */
  private classAtom(): number | Ranges {
    const ch = this.src[this.pos++];
    if (ch === undefined) throw unsupported('a missing ]');
    if (ch !== '\\') return ch.codePointAt(0)!;
    if (this.src[this.pos] === 'b') throw unsupported('\\b in a class');
    return this.shorthand() ?? this.escapedCodePoint();
  }

  /** A quantifier after an atom, if any: * + ? {n} {n,} {n,m}, with an optional lazy ?. */
  private parseQuantifier(atom: Node): Node {
    const ch = this.src[this.pos];
    let min: number;
    let max: number;
    if (ch === '*' || ch === '+' || ch === '?') {
      this.pos++;
      [min, max] = ch === '*' ? [0, Infinity] : ch === '+' ? [1, Infinity] : [0, 1];
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 12).join(''));
      if (m === null) throw unsupported('a bare {');
      this.pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      // regex.ts refuses counts over 255 and bounds the expanded size; this only guards against a change there.
      if (min > 1000 || (max !== Infinity && max > 1000) || max < min) throw unsupported('a count');
    } else return atom;
    const lazy = this.src[this.pos] === '?';
    if (lazy) this.pos++;
    if (atom.k === 'look') throw unsupported('a quantified assertion');
    return { k: 'rep', item: atom, min, max, lazy };
  }
}

/** A lookaround body as its finite set of sequences of code point sets and edges (at most MAX_LOOK_ALTS). */
function lookSequences(node: Node, ahead: boolean): LookStep[][] {
  switch (node.k) {
    case 'set':
      return [[node.set]];
    case 'cap':
      throw unsupported('a capture group in an assertion');
    case 'look': {
      const { look } = node;
      const edgeOnly = look.alts.length === 1 && look.alts[0]!.length === 1 && look.alts[0]![0] === EDGE;
      // `$` in a lookahead is the end, `^` in a lookbehind the start; nothing else nests.
      if (!edgeOnly || look.negate || look.ahead !== ahead) throw unsupported('a nested assertion');
      return [[EDGE]];
    }
    case 'alt':
      return capped(node.items.flatMap((item) => lookSequences(item, ahead)));
    case 'seq': {
      let acc: LookStep[][] = [[]];
      for (const item of node.items) {
        const next = lookSequences(item, ahead);
        acc = capped(acc.flatMap((head) => next.map((tail) => [...head, ...tail])));
      }
      return acc;
    }
    case 'rep': {
      if (node.max === Infinity) throw unsupported('an unbounded repetition in an assertion');
      const one = lookSequences(node.item, ahead);
      const out: LookStep[][] = [];
      let acc: LookStep[][] = [[]];
      for (let n = 0; n <= node.max; n++) {
        if (n >= node.min) out.push(...acc);
        acc = capped(acc.flatMap((head) => one.map((tail) => [...head, ...tail])));
      }
      return capped(out);
    }
  }
}

function capped(seqs: LookStep[][]): LookStep[][] {
  if (seqs.length > MAX_LOOK_ALTS) throw unsupported('a large assertion');
  return seqs;
}
