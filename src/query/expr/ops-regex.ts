// $regexMatch through the room's own regex engine: regex.ts checks and translates the pattern (PCRE meaning),
// regex-nfa.ts / regex-vm.ts test it in linear time with a step budget; V8's RegExp never sees a user pattern.
// $regexFind and $regexFindAll take the match's position and captures from the Pike VM (regex-pike.ts), also
// linear-time and on the same budget, and step through the input as MongoDB's evaluate_regex.cpp does.
import { isPlaybaseError } from '../../errors.js';
import { type TranslatedRegex, translateRegex } from '../regex.js';
import type { Program } from '../regex-build.js';
import { findProgramOf, MAX_FIND_GROUPS, programOf } from '../regex-nfa.js';
import { findMatch } from '../regex-pike.js';
import { runProgram, stepBudgetOf } from '../regex-vm.js';
import type { Doc, Value } from '../values.js';
import { isNullish, named, optExpr, typeName } from './args.js';
import { bad, type Ctx, evalExpr, type Out, parseExpr, register, type Scope, spend } from './core.js';

/** Dynamic patterns translated per node, at most this many kept. */
const CACHE_SIZE = 32;

function translate(op: string, pattern: Out, options: Out): TranslatedRegex {
  if (typeof pattern !== 'string') throw bad(op, `'regex' must be a string, not ${typeName(pattern)}`);
  if (options !== undefined && options !== null && typeof options !== 'string')
    throw bad(op, `'options' must be a string, not ${typeName(options)}`);
  try {
    return translateRegex(pattern, options ?? '');
  } catch (e) {
    if (isPlaybaseError(e)) throw bad(op, e.message);
    throw e;
  }
}

register({
  $regexMatch: (arg, scope, op) => {
    const spec = named(arg, op, ['input', 'regex'], ['options']);
    const input = parseExpr(spec.input!, scope);
    const constant =
      typeof spec.regex === 'string' && (spec.options === undefined || typeof spec.options === 'string');
    // A constant pattern is translated once, while the pipeline is parsed (sharing its step budget).
    const fixed = constant ? translate(op, spec.regex, spec.options) : undefined;
    const regex = parseExpr(spec.regex!, scope);
    const options = optExpr(spec.options, scope);
    const cache = new Map<string, TranslatedRegex>();
    return (ctx) => {
      const s = evalExpr(input, ctx);
      let tr = fixed;
      if (tr === undefined) {
        const p = evalExpr(regex, ctx);
        const o = options === undefined ? undefined : evalExpr(options, ctx);
        if (isNullish(p)) return false;
        const key = JSON.stringify([p, o ?? '']);
        tr = cache.get(key) ?? translate(op, p, o);
        if (cache.size < CACHE_SIZE) cache.set(key, tr);
      }
      if (isNullish(s)) return false;
      if (typeof s !== 'string') throw bad(op, `'input' must be a string, not ${typeName(s)}`);
      return runProgram(programOf(tr), s, stepBudgetOf(tr));
    };
  },
  $regexFind: (arg, scope, op) => {
    const prepare = findParser(arg, scope, op);
    return (ctx) => {
      const job = prepare(ctx);
      if (job === null) return null;
      const m = findMatch(job.prog, job.s, 0, stepBudgetOf(job.tr));
      return m === null ? null : matchDoc(ctx, job.s, m, codePoints(job.s, 0, m[0]!));
    };
  },
  $regexFindAll: (arg, scope, op) => {
    const prepare = findParser(arg, scope, op);
    return (ctx) => {
      const job = prepare(ctx);
      if (job === null) return [];
      const { s, prog, tr } = job;
      const out: Value[] = [];
      // MongoDB's loop: the next search starts where a match ended, or one code point after an empty match;
      // it stops at the end of the input (so an empty input is searched once).
      let pos = 0;
      let cpPos = 0;
      do {
        const m = findMatch(prog, s, pos, stepBudgetOf(tr));
        if (m === null) break;
        const start = m[0]!;
        const end = m[1]!;
        const idx = cpPos + codePoints(s, pos, start);
        out.push(matchDoc(ctx, s, m, idx));
        if (start === end) {
          if (start >= s.length) break;
          pos = start + ((s.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
          cpPos = idx + 1;
        } else {
          pos = end;
          cpPos = idx + codePoints(s, start, end);
        }
      } while (pos < s.length);
      return out;
    };
  },
});

interface FindJob {
  s: string;
  tr: TranslatedRegex;
  prog: Program;
}

/** Parses {input, regex, options}; per document: the string and its regex, null when either is nullish. */
function findParser(arg: Value, scope: Scope, op: string): (ctx: Ctx) => FindJob | null {
  const spec = named(arg, op, ['input', 'regex'], ['options']);
  const input = parseExpr(spec.input!, scope);
  const constant =
    typeof spec.regex === 'string' && (spec.options === undefined || typeof spec.options === 'string');
  const fixed = constant ? findTranslate(op, spec.regex, spec.options) : undefined;
  const regex = parseExpr(spec.regex!, scope);
  const options = optExpr(spec.options, scope);
  const cache = new Map<string, TranslatedRegex>();
  return (ctx) => {
    let tr = fixed;
    if (tr === undefined) {
      const p = evalExpr(regex, ctx);
      const o = options === undefined ? undefined : evalExpr(options, ctx);
      // As MongoDB: the pattern's and the options' types are checked before the input's, even when null.
      if (!isNullish(p)) {
        const key = JSON.stringify([p, o ?? '']);
        tr = cache.get(key) ?? findTranslate(op, p, o);
        if (cache.size < CACHE_SIZE) cache.set(key, tr);
      } else if (!isNullish(o) && typeof o !== 'string')
        throw bad(op, `'options' must be a string, not ${typeName(o)}`);
    }
    const s = evalExpr(input, ctx);
    if (!isNullish(s) && typeof s !== 'string') throw bad(op, `'input' must be a string, not ${typeName(s)}`);
    if (tr === undefined || isNullish(s)) return null;
    return { s, tr, prog: findProgramOf(tr) };
  };
}

function findTranslate(op: string, pattern: Out, options: Out): TranslatedRegex {
  const tr = translate(op, pattern, options);
  try {
    findProgramOf(tr);
  } catch {
    throw bad(op, `the pattern has more than ${MAX_FIND_GROUPS} capture groups`);
  }
  return tr;
}

/** {match, idx, captures} of a match (slots from findMatch), idx in code points. */
function matchDoc(ctx: Ctx, s: string, m: Int32Array, idx: number): Doc {
  const captures: Value[] = [];
  let size = m[1]! - m[0]!;
  for (let g = 2; g < m.length; g += 2) {
    const from = m[g]!;
    const to = m[g + 1]!;
    if (from < 0 || to < 0) captures.push(null);
    else {
      captures.push(s.slice(from, to));
      size += to - from;
    }
  }
  // A match document costs 8 units besides its text, so an input of empty matches cannot build millions free.
  spend(ctx, 8 + size + captures.length);
  return { match: s.slice(m[0]!, m[1]!), idx, captures };
}

/** Code points in s between UTF-16 positions from and to (both on code point boundaries). */
function codePoints(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === from || !isHigh(s.charCodeAt(i - 1))) n++;
  }
  return n;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
