// Runs a regex-nfa.ts program over a string in linear time: a Thompson NFA simulation that keeps the set of
// live states, one step per code point, with a new thread started at every position in the same pass, so a
// test costs O(length × program size) whatever the pattern (V8's backtracking RegExp froze the process on
// `.*x` and `^(a|a)*$`, issue 20). Only a yes/no answer is kept: no captures, no priorities.
//
// Every state visited spends one step of a StepBudget; past it the evaluation stops with 400 QUERY_TOO_LARGE,
// so the worst case (a 5,000-state program over a 16 MB string) is refused instead of running for minutes.
import { queryErrors } from './errors.js';
import { OP_CHAR, OP_JMP, OP_LOOK, OP_SPLIT, type Program } from './regex-nfa.js';
import { type CharSet, lookHolds, setHas } from './regex-sets.js';

/** State visits the $regex predicates of one pipeline or update may spend over all the values they test. */
export const MAX_REGEX_STEPS = 10_000_000;

export interface StepBudget {
  left: number;
}

export function newStepBudget(): StepBudget {
  return { left: MAX_REGEX_STEPS };
}

/** The budget shared by the regexes translated during the current (synchronous) parse, if any. */
let sharedBudget: StepBudget | undefined;
const budgets = new WeakMap<object, StepBudget>();

/**
 * Runs a synchronous parse during which every translated $regex shares one new budget (parsePipeline,
 * parseUpdate), so that a request cannot multiply the bound by sending many predicates.
 */
export function sharingRegexBudget<T>(parse: () => T): T {
  const outer = sharedBudget;
  sharedBudget ??= newStepBudget();
  try {
    return parse();
  } finally {
    sharedBudget = outer;
  }
}

/** Called by translateRegex: the regex spends the budget of the parse in progress (or one of its own). */
export function attachStepBudget(regex: object): void {
  budgets.set(regex, sharedBudget ?? newStepBudget());
}

/** The budget a translated regex spends; a fresh one if it was made elsewhere. */
export function stepBudgetOf(regex: object): StepBudget {
  let budget = budgets.get(regex);
  if (budget === undefined) {
    budget = newStepBudget();
    budgets.set(regex, budget);
  }
  return budget;
}

/** The work lists of one run, sized to the program and reused across runs of the same program. */
interface Lists {
  cur: Int32Array;
  next: Int32Array;
  /** The generation in which each state was last added; a new generation per position clears all marks. */
  mark: Uint32Array;
  stack: Int32Array;
  gen: number;
}

const listsOf = new WeakMap<Program, Lists>();

function listsFor(prog: Program): Lists {
  let lists = listsOf.get(prog);
  if (lists === undefined) {
    const n = prog.op.length;
    lists = {
      cur: new Int32Array(n),
      next: new Int32Array(n),
      mark: new Uint32Array(n),
      // A state is pushed once per edge into it, and it has at most two edges out: 2n + 1 pushes at most.
      stack: new Int32Array(2 * n + 1),
      gen: 0,
    };
    listsOf.set(prog, lists);
  }
  return lists;
}

/** Whether the program matches somewhere in s (JavaScript's RegExp.prototype.test, with the u flag). */
export function runProgram(prog: Program, s: string, budget: StepBudget): boolean {
  const run = new Run(prog, s, listsFor(prog), budget.left);
  try {
    return run.search();
  } finally {
    budget.left = run.left;
  }
}

class Run {
  private cur: Int32Array;
  private next: Int32Array;
  private curCount = 0;
  private nextCount = 0;

  constructor(
    private readonly prog: Program,
    private readonly s: string,
    private readonly lists: Lists,
    public left: number,
  ) {
    this.cur = lists.cur;
    this.next = lists.next;
  }

  search(): boolean {
    const { prog, s } = this;
    const { sets, a, b, anchored, first } = prog;
    const len = s.length;
    this.newGeneration();
    for (let pos = 0; ; ) {
      // No thread alive: skip to a position where a match can start (a step spent per position skipped).
      if (this.curCount === 0 && first !== null && pos > 0 && !anchored) {
        const at = this.skip(pos, first);
        // The marks of this generation were set at the position skipped from: a state the last step visited
        // there (an assertion that failed) must be visited again here ((?:\Ba)*\Bx on "ba bx" missed its match).
        if (at !== pos) this.newGeneration();
        pos = at;
      }
      // A thread starting here, after the threads carried from the previous position (same generation).
      if ((pos === 0 || !anchored) && this.addClosure(prog.start, pos, true)) return true;
      if (pos >= len || (this.curCount === 0 && anchored)) return false;
      const cp = s.codePointAt(pos)!;
      pos += cp > 0xffff ? 2 : 1;
      this.newGeneration();
      this.nextCount = 0;
      const cur = this.cur;
      for (let i = 0, n = this.curCount; i < n; i++) {
        const state = cur[i]!;
        if (setHas(sets[b[state]!]!, cp) && this.addClosure(a[state]!, pos, false)) return true;
      }
      this.cur = this.next;
      this.next = cur;
      this.curCount = this.nextCount;
    }
  }

  /** The first position from pos whose code point can begin a match, or the end. */
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
    const lists = this.lists;
    lists.gen = (lists.gen + 1) >>> 0;
    if (lists.gen === 0) {
      lists.mark.fill(0);
      lists.gen = 1;
    }
  }

  /** The common case, a reading state reached directly: no closure to walk. */
  private addReader(state: number, intoCur: boolean): false {
    const lists = this.lists;
    if (lists.mark[state] === lists.gen) return false;
    lists.mark[state] = lists.gen;
    if (--this.left < 0) throw tooManySteps();
    if (intoCur) this.cur[this.curCount++] = state;
    else this.next[this.nextCount++] = state;
    return false;
  }

  /** Adds `from` and every state reachable from it without reading (checking assertions at pos); true on MATCH. */
  private addClosure(from: number, pos: number, intoCur: boolean): boolean {
    const { prog, lists } = this;
    if (prog.op[from] === OP_CHAR) return this.addReader(from, intoCur);
    const { op, a, b } = prog;
    const { mark, stack } = lists;
    const gen = lists.gen;
    const list = intoCur ? this.cur : this.next;
    let count = intoCur ? this.curCount : this.nextCount;
    let left = this.left;
    let top = 0;
    let matched = false;
    stack[top++] = from;
    while (top > 0) {
      const state = stack[--top]!;
      if (mark[state] === gen) continue;
      mark[state] = gen;
      left--;
      const code = op[state];
      if (code === OP_CHAR) list[count++] = state;
      else if (code === OP_SPLIT) {
        stack[top++] = b[state]!;
        stack[top++] = a[state]!;
      } else if (code === OP_LOOK) {
        if (lookHolds(prog.looks[b[state]!]!, this.s, pos)) stack[top++] = a[state]!;
      } else if (code === OP_JMP) stack[top++] = a[state]!;
      else {
        matched = true;
        break;
      }
    }
    if (intoCur) this.curCount = count;
    else this.nextCount = count;
    this.left = left;
    if (left < 0) throw tooManySteps();
    return matched;
  }
}

export function tooManySteps(): Error {
  return queryErrors.tooLarge(
    'state visits of the $regex predicates of one pipeline or update',
    MAX_REGEX_STEPS,
  );
}
