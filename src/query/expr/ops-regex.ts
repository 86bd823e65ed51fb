// $regexMatch through the room's own regex engine: regex.ts checks and translates the pattern (PCRE meaning),
// regex-nfa.ts / regex-vm.ts test it in linear time with a step budget; V8's RegExp never sees a user pattern.
// $regexFind and $regexFindAll need the match's position and captures, which the yes/no matcher does not
// compute, so they answer 400 naming the operator rather than an inexact result.
import { isPlaybaseError } from '../../errors.js';
import { type TranslatedRegex, translateRegex } from '../regex.js';
import { programOf } from '../regex-nfa.js';
import { runProgram, stepBudgetOf } from '../regex-vm.js';
import { isNullish, named, optExpr, typeName } from './args.js';
import { bad, evalExpr, type Out, parseExpr, register } from './core.js';

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
  $regexFind: (_arg, _scope, op) => {
    throw bad(op, 'not supported (the linear-time regex matcher gives no match positions or captures)');
  },
  $regexFindAll: (_arg, _scope, op) => {
    throw bad(op, 'not supported (the linear-time regex matcher gives no match positions or captures)');
  },
});
