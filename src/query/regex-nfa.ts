// Compiles the JavaScript that regex.ts writes for a $regex into a Thompson NFA program for regex-vm.ts.
//
// V8's RegExp backtracks: `.*x` over 100,000 characters took 12 s and `^(a|a)*$` doubles per character
// (issue 20), so the server never runs it on stored data. This reads exactly the subset regex.ts emits, with
// JavaScript's meaning under the u flag: code points (`\u{h}`, `\uhhhh`, `\t\n\v\f\r`, bare characters), `.`,
// classes with ranges and `\d\D\s\S\w\W`, `(?:...)`, `|`, `* + ? {n} {n,} {n,m}` (lazy marks ignored: only a
// yes/no match is asked), `^`, `$`, and lookarounds whose body is a finite set of short sequences (`(?<=\n)`,
// `(?!$)`, `(?=\n?$)`, the parts of `\b`), which become O(1) position checks. Anything else throws, so a
// change in regex.ts that this does not read is a 400 at parse time (translateRegex compiles both).
import {
  type CharSet,
  complement,
  EDGE,
  JS_DIGIT,
  JS_LINE_END,
  JS_SPACE,
  JS_WORD,
  type Look,
  type LookStep,
  makeSet,
} from './regex-sets.js';

export const OP_CHAR = 0;
export const OP_SPLIT = 1;
export const OP_JMP = 2;
export const OP_LOOK = 3;
const OP_MATCH = 4;

/** Instruction i is op[i] with operands a[i] (next, or first branch) and b[i] (second branch, set or look). */
export interface Program {
  op: Uint8Array;
  a: Int32Array;
  b: Int32Array;
  sets: CharSet[];
  looks: Look[];
  start: number;
  /** Every match starts at position 0 (a leading `^`): the search ends once no thread is alive. */
  anchored: boolean;
  /** The sets one of which the first code point of any match is in, or null (an empty match is possible). */
  first: CharSet[] | null;
}

type Node =
  | { k: 'set'; set: CharSet }
  | { k: 'look'; look: Look }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; items: Node[] }
  | { k: 'rep'; item: Node; min: number; max: number };

type Ranges = Array<[number, number]>;

/** Deeper than regex.ts ever writes (16 groups, each with at most one lookaround inside). */
const MAX_DEPTH = 64;
/** Most sequences one lookaround body may stand for. */
const MAX_LOOK_ALTS = 64;
const SHORTHANDS: Record<string, Ranges> = { d: JS_DIGIT, s: JS_SPACE, w: JS_WORD };
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

function compileProgram(js: string): Program {
  const parser = new JsRegexParser([...js]);
  const tree = parser.parseAll();
  const builder = new Builder();
  const matchState = builder.add(OP_MATCH, 0, 0);
  const start = builder.emit(tree, matchState);
  const code = builder.finish();
  return { ...code, start, anchored: anchoredAtStart(tree), first: firstSets(code, start) };
}

/** Most sets kept for skipping positions where no match can start; past it every position is tried. */
const MAX_FIRST_SETS = 8;

/** The sets reachable from start without reading, taking every assertion as holding (so a superset). */
function firstSets(code: Pick<Program, 'op' | 'a' | 'b' | 'sets'>, start: number): CharSet[] | null {
  const found = new Set<CharSet>();
  const seen = new Set<number>();
  const stack = [start];
  while (stack.length > 0) {
    const state = stack.pop()!;
    if (seen.has(state)) continue;
    seen.add(state);
    const op = code.op[state];
    if (op === OP_MATCH) return null;
    if (op === OP_CHAR) found.add(code.sets[code.b[state]!]!);
    else if (op === OP_SPLIT) stack.push(code.a[state]!, code.b[state]!);
    else stack.push(code.a[state]!);
  }
  return found.size <= MAX_FIRST_SETS ? [...found] : null;
}

const programs = new WeakMap<object, Program>();

/** The program of a translated regex, compiled once per TranslatedRegex. */
export function programOf(regex: { js: string }): Program {
  let prog = programs.get(regex);
  if (prog === undefined) {
    prog = compileProgram(regex.js);
    programs.set(regex, prog);
  }
  return prog;
}

function unsupported(what: string): Error {
  return new Error(`regex-nfa: ${what} is outside the subset regex.ts writes`);
}

class JsRegexParser {
  private pos = 0;

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
    if (this.src[this.pos] === '?') {
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

  /** A quantifier after an atom, if any: * + ? {n} {n,} {n,m}, with an optional lazy ? (ignored). */
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
    if (this.src[this.pos] === '?') this.pos++;
    if (atom.k === 'look') throw unsupported('a quantified assertion');
    return { k: 'rep', item: atom, min, max };
  }
}

/** A lookaround body as its finite set of sequences of code point sets and edges (at most MAX_LOOK_ALTS). */
function lookSequences(node: Node, ahead: boolean): LookStep[][] {
  switch (node.k) {
    case 'set':
      return [[node.set]];
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

function anchoredAtStart(node: Node): boolean {
  switch (node.k) {
    case 'look':
      return (
        !node.look.ahead && !node.look.negate && node.look.alts.every((a) => a.length === 1 && a[0] === EDGE)
      );
    case 'seq':
      return node.items.length > 0 && anchoredAtStart(node.items[0]!);
    case 'alt':
      return node.items.every(anchoredAtStart);
    case 'rep':
      return node.min > 0 && anchoredAtStart(node.item);
    case 'set':
      return false;
  }
}

/** Emits instructions back to front: emit(node, next) returns the entry of node, which continues at next. */
class Builder {
  private readonly op: number[] = [];
  private readonly a: number[] = [];
  private readonly b: number[] = [];
  private readonly sets: CharSet[] = [];
  private readonly setIds = new Map<CharSet, number>();
  private readonly looks: Look[] = [];

  add(op: number, a: number, b: number): number {
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  emit(node: Node, next: number): number {
    switch (node.k) {
      case 'set':
        return this.add(OP_CHAR, next, this.setId(node.set));
      case 'look':
        this.looks.push(node.look);
        return this.add(OP_LOOK, next, this.looks.length - 1);
      case 'seq': {
        let entry = next;
        for (let i = node.items.length - 1; i >= 0; i--) entry = this.emit(node.items[i]!, entry);
        return entry;
      }
      case 'alt': {
        let entry = this.emit(node.items[node.items.length - 1]!, next);
        for (let i = node.items.length - 2; i >= 0; i--) {
          entry = this.add(OP_SPLIT, this.emit(node.items[i]!, next), entry);
        }
        return entry;
      }
      case 'rep':
        return this.emitRep(node, next);
    }
  }

  /** x{n,m} is n copies then m - n nested optional copies; x{n,} is n copies then a loop (copies share sets). */
  private emitRep(node: Extract<Node, { k: 'rep' }>, next: number): number {
    let entry: number;
    if (node.max === Infinity) {
      const loop = this.add(OP_SPLIT, 0, next);
      this.a[loop] = this.emit(node.item, loop);
      entry = loop;
    } else {
      entry = next;
      for (let i = node.min; i < node.max; i++) entry = this.add(OP_SPLIT, this.emit(node.item, entry), next);
    }
    for (let i = 0; i < node.min; i++) entry = this.emit(node.item, entry);
    return entry;
  }

  private setId(set: CharSet): number {
    let id = this.setIds.get(set);
    if (id === undefined) {
      id = this.sets.push(set) - 1;
      this.setIds.set(set, id);
    }
    return id;
  }

  finish(): Pick<Program, 'op' | 'a' | 'b' | 'sets' | 'looks'> {
    return {
      op: Uint8Array.from(this.op),
      a: Int32Array.from(this.a),
      b: Int32Array.from(this.b),
      sets: this.sets,
      looks: this.looks,
    };
  }
}
