// The instruction set of the linear regex matcher and its compiler from the parsed tree (regex-nfa.ts parses).
//
// One builder serves both programs: the yes/no program of $regex and $regexMatch (regex-vm.ts), and the
// program of $regexFind/$regexFindAll (regex-pike.ts), which also records capture groups (OP_SAVE) and whose
// SPLIT instructions list their branches in PCRE's order of preference (a[] first: greedy repeats try one
// more, lazy ones one less, alternatives left to right), so a Pike VM that runs threads in that order reports
// the match a backtracking engine reports.
import { type CharSet, EDGE, type Look } from './regex-sets.js';

export const OP_CHAR = 0;
export const OP_SPLIT = 1;
export const OP_JMP = 2;
export const OP_LOOK = 3;
export const OP_MATCH = 4;
/** Records the position in capture slot b[i] (2g: start of group g, 2g + 1: its end), then goes on at a[i]. */
export const OP_SAVE = 5;

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
  /** Capture slots (2 per group, group 0 the whole match); 0 in a yes/no program. */
  slots: number;
}

export type Node =
  | { k: 'set'; set: CharSet }
  | { k: 'look'; look: Look }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; items: Node[] }
  | { k: 'rep'; item: Node; min: number; max: number; lazy: boolean }
  | { k: 'cap'; index: number; item: Node };

/** The program of a parsed tree; with captures, the whole match is saved in slots 0 and 1. */
export function buildProgram(tree: Node, captures: boolean, groups: number): Program {
  const builder = new Builder(captures);
  const matchState = builder.add(OP_MATCH, 0, 0);
  let start: number;
  if (captures) {
    const end = builder.add(OP_SAVE, matchState, 1);
    start = builder.add(OP_SAVE, builder.emit(tree, end), 0);
  } else start = builder.emit(tree, matchState);
  const code = builder.finish();
  return {
    ...code,
    start,
    anchored: anchoredAtStart(tree),
    first: firstSets(code, start),
    slots: captures ? 2 * (groups + 1) : 0,
  };
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
    case 'cap':
      return anchoredAtStart(node.item);
    case 'set':
      return false;
  }
}

/** Whether the node can match the empty string (assertions taken as holding). */
export function nullable(node: Node): boolean {
  switch (node.k) {
    case 'set':
      return false;
    case 'look':
      return true;
    case 'seq':
      return node.items.every(nullable);
    case 'alt':
      return node.items.some(nullable);
    case 'rep':
      return node.min === 0 || nullable(node.item);
    case 'cap':
      return nullable(node.item);
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

  constructor(private readonly captures: boolean) {}

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
      case 'cap': {
        if (!this.captures) return this.emit(node.item, next);
        const end = this.add(OP_SAVE, next, 2 * node.index + 1);
        return this.add(OP_SAVE, this.emit(node.item, end), 2 * node.index);
      }
    }
  }

  /** A SPLIT preferring `more` (one more repetition) when greedy, `done` when lazy. */
  private choice(more: number, done: number, lazy: boolean): number {
    return lazy ? this.add(OP_SPLIT, done, more) : this.add(OP_SPLIT, more, done);
  }

  /**
   * x{n,m} is n copies then m - n nested optional copies; x{n,} is n - 1 copies then x+ (a copy that loops
   * back), and x* is (x+)?: a repetition that matched nothing stops there, as in PCRE, instead of losing the
   * iteration to the loop's mark (Go's regexp compiles x* the same way for this reason). Copies share sets.
   */
  private emitRep(node: Extract<Node, { k: 'rep' }>, next: number): number {
    const { item, min, max, lazy } = node;
    let entry: number;
    let copies = min;
    if (max === Infinity) {
      const loop = this.add(OP_SPLIT, 0, 0);
      const body = this.emit(item, loop);
      this.a[loop] = lazy ? next : body;
      this.b[loop] = lazy ? body : next;
      entry = min === 0 ? this.choice(body, next, lazy) : body;
      copies = Math.max(0, min - 1);
    } else {
      entry = next;
      for (let i = min; i < max; i++) entry = this.choice(this.emit(item, entry), next, lazy);
    }
    for (let i = 0; i < copies; i++) entry = this.emit(item, entry);
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
