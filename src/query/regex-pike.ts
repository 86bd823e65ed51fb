// Finds the leftmost match of a regex and its capture groups in linear time: a Pike VM over the program of
// findProgramOf (regex-build.ts), for $regexFind and $regexFindAll.
//
// Threads run in PCRE's order of preference: the closure of a position is walked depth first, a SPLIT's a[]
// branch before its b[] branch, and a new thread starts at each position after the threads carried from the
// previous one. When a thread matches, the threads after it (less preferred) are dropped and no new thread
// starts; the more preferred ones run on and may replace the match. A state reached twice at one position
// keeps its first (most preferred) thread, so a step costs O(program) and a search O(program × input), the
// capture slots of each thread being copied when it reads a code point. The answer is the one a backtracking
// engine gives (leftmost, then greedy/lazy/alternative priority), with one known difference where a group that
// can match the empty string is repeated without bound (docs/query-engine-js.md, "$regexFind").
//
// Every state visited and every slot copied spends the regex step budget (regex-vm.ts): past it 400
// QUERY_TOO_LARGE, so a hostile pattern over a hostile string is refused, not run for minutes.
import { OP_CHAR, OP_JMP, OP_LOOK, OP_MATCH, OP_SAVE, OP_SPLIT, type Program } from './regex-build.js';
import { type CharSet, lookHolds, setHas } from './regex-sets.js';
import { type StepBudget, tooManySteps } from './regex-vm.js';

/** A thread list: states in preference order, with the capture slots of each. */
interface List {
  pc: Int32Array;
  caps: Int32Array;
  n: number;
}

interface Machine {
  cur: List;
  next: List;
  mark: Uint32Array;
  gen: number;
  /** The slots being built by a closure walk; restored on the way back. */
  work: Int32Array;
  /** Closure stack: a state (>= 0) or a slot to restore (-1 - slot, with its old value in stackOld). */
  stack: Int32Array;
  stackOld: Int32Array;
}

const machines = new WeakMap<Program, Machine>();

function machineFor(prog: Program): Machine {
  let m = machines.get(prog);
  if (m === undefined) {
    const n = prog.op.length;
    const list = (): List => ({ pc: new Int32Array(n), caps: new Int32Array(n * prog.slots), n: 0 });
    m = {
      cur: list(),
      next: list(),
      mark: new Uint32Array(n),
      gen: 0,
      work: new Int32Array(prog.slots),
      // Each state is pushed once per edge into it (at most 2n) plus one restore per SAVE visited (at most n).
      stack: new Int32Array(3 * n + 2),
      stackOld: new Int32Array(3 * n + 2),
    };
    machines.set(prog, m);
  }
  return m;
}

/**
 * The leftmost match at or after `from` (a code point boundary of s), as slots: [2g] and [2g + 1] are the
 * UTF-16 start and end of group g (group 0 the whole match), -1 for a group that took no part; null if none.
 */
export function findMatch(prog: Program, s: string, from: number, budget: StepBudget): Int32Array | null {
  const run = new PikeRun(prog, s, machineFor(prog), budget.left);
  try {
    return run.search(from);
  } finally {
    budget.left = run.left;
  }
}

class PikeRun {
  private matched: Int32Array | null = null;
  private readonly slots: number;

  constructor(
    private readonly prog: Program,
    private readonly s: string,
    private readonly m: Machine,
    public left: number,
  ) {
    this.slots = prog.slots;
  }

  search(from: number): Int32Array | null {
    const { prog, s, m } = this;
    const len = s.length;
    m.cur.n = 0;
    this.newGeneration();
    for (let pos = from; ; ) {
      if (this.matched === null) {
        if (m.cur.n === 0 && pos > from) {
          if (prog.anchored) break;
          const at = prog.first === null ? pos : this.skip(pos, prog.first);
          // The marks of this generation were set at the position skipped from.
          if (at !== pos) this.newGeneration();
          pos = at;
        }
        // A thread starting here, after the threads carried from the previous position (same generation).
        if (pos === from || !prog.anchored) {
          m.work.fill(-1);
          this.addClosure(m.cur, prog.start, pos);
        }
      }
      const cp = pos < len ? s.codePointAt(pos)! : -1;
      const after = pos + (cp > 0xffff ? 2 : 1);
      if (m.cur.n === 0) {
        if (this.matched !== null || prog.anchored || pos >= len) break;
        this.newGeneration();
        pos = after;
        continue;
      }
      this.newGeneration();
      m.next.n = 0;
      this.step(cp, after);
      const done = m.cur;
      m.cur = m.next;
      m.next = done;
      if (pos >= len) break;
      pos = after;
    }
    return this.matched;
  }

  /** Advances every thread of cur over code point cp (-1 at the end) into next, in order, until one matches. */
  private step(cp: number, after: number): void {
    const { prog, m, slots } = this;
    const { cur } = m;
    const sets = prog.sets;
    for (let i = 0; i < cur.n; i++) {
      const state = cur.pc[i]!;
      if (prog.op[state] === OP_MATCH) {
        this.matched = cur.caps.slice(i * slots, (i + 1) * slots);
        return; // the threads after this one are less preferred than its match
      }
      if (cp < 0 || !setHas(sets[prog.b[state]!] as CharSet, cp)) continue;
      const work = m.work;
      for (let k = 0, at = i * slots; k < slots; k++) work[k] = cur.caps[at + k]!;
      this.addClosure(m.next, prog.a[state]!, after);
    }
  }

  /** The first position from `from` whose code point can begin a match, or the end (a step per position). */
  private skip(from: number, first: CharSet[]): number {
    const s = this.s;
    let pos = from;
    while (pos < s.length) {
      const cp = s.codePointAt(pos)!;
      if (first.some((set) => setHas(set, cp))) break;
      pos += cp > 0xffff ? 2 : 1;
    }
    this.left -= pos - from;
    if (this.left < 0) throw tooManySteps();
    return pos;
  }

  private newGeneration(): void {
    const m = this.m;
    m.gen = (m.gen + 1) >>> 0;
    if (m.gen === 0) {
      m.mark.fill(0);
      m.gen = 1;
    }
  }

  /** Adds the threads reachable from `from` without reading, in preference order, with the slots of m.work. */
  private addClosure(list: List, from: number, pos: number): void {
    const { prog, m, slots } = this;
    const { op, a, b } = prog;
    const { mark, stack, stackOld, work } = m;
    const gen = m.gen;
    let left = this.left;
    let top = 0;
    stack[top++] = from;
    while (top > 0) {
      const entry = stack[--top]!;
      if (entry < 0) {
        work[-1 - entry] = stackOld[top]!;
        continue;
      }
      if (mark[entry] === gen) continue;
      mark[entry] = gen;
      left--;
      const code = op[entry];
      if (code === OP_CHAR || code === OP_MATCH) {
        list.pc[list.n] = entry;
        const caps = list.caps;
        for (let k = 0, at = list.n * slots; k < slots; k++) caps[at + k] = work[k]!;
        list.n++;
        // A thread kept costs its slot copies too (measured: about twice a yes/no state visit).
        left -= 1 + (slots >> 2);
      } else if (code === OP_SPLIT) {
        stack[top++] = b[entry]!;
        stack[top++] = a[entry]!;
      } else if (code === OP_SAVE) {
        const slot = b[entry]!;
        stackOld[top] = work[slot]!;
        stack[top++] = -1 - slot;
        work[slot] = pos;
        stack[top++] = a[entry]!;
      } else if (code === OP_LOOK) {
        if (lookHolds(prog.looks[b[entry]!]!, this.s, pos)) stack[top++] = a[entry]!;
      } else if (code === OP_JMP) stack[top++] = a[entry]!;
    }
    this.left = left;
    if (left < 0) throw tooManySteps();
  }
}
