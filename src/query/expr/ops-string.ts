// Strings: $concat $substrCP $substrBytes $toLower $toUpper $trim $ltrim $rtrim $split $strLenCP $strLenBytes
// $indexOfCP $replaceOne $replaceAll. Lengths and indexes count code points (CP) or UTF-8 bytes, as MongoDB;
// case mapping is ASCII-only, as MongoDB's. Every string built or scanned spends work units (core.ts).
import { integral, isNullish, named, positional, typeName } from './args.js';
import {
  bad,
  type Ctx,
  type Expr,
  evalExpr,
  MAX_EXPR_STRING,
  type OpParser,
  type Out,
  register,
  spend,
} from './core.js';
import { indexOfLinear, occurrences, replaceLinear, splitLinear } from './text-search.js';
import { coerceToString } from './to-string.js';

const tooLong = (op: string) => bad(op, `the resulting string would exceed ${MAX_EXPR_STRING} characters`);

/** A string result, refused past MAX_EXPR_STRING. */
export function capped(op: string, ctx: Ctx, s: string): string {
  if (s.length > MAX_EXPR_STRING) throw tooLong(op);
  spend(ctx, s.length);
  return s;
}

/** A string operand, null for null/missing, else 400. */
function strOrNull(op: string, v: Out, what: string): string | null {
  if (isNullish(v)) return null;
  if (typeof v !== 'string') throw bad(op, `${what} must be a string, not ${typeName(v)}`);
  return v;
}

/** Code points of a string (surrogate pairs are one). */
const codePoints = (s: string) => Array.from(s);

/** MongoDB's default $trim set: NUL, ASCII whitespace, NBSP, U+1680 and U+2000–U+200A. */
const WHITESPACE = ['\u0000', ' ', '\t', '\n', '\u000b', '\f', '\r', '\u00a0', '\u1680'].concat(
  Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
);

function trimOp(left: boolean, right: boolean): OpParser {
  return (arg, scope, op) => {
    const spec = named(arg, op, ['input'], ['chars']);
    const input = evalArg(spec.input!, scope);
    const chars = spec.chars === undefined ? undefined : evalArg(spec.chars, scope);
    return (ctx) => {
      const s = strOrNull(op, evalExpr(input, ctx), "'input'");
      const cv = chars === undefined ? undefined : evalExpr(chars, ctx);
      if (s === null || (chars !== undefined && isNullish(cv))) return null;
      const set = new Set(cv === undefined ? WHITESPACE : codePoints(strOrNull(op, cv, "'chars'")!));
      const cps = codePoints(s);
      spend(ctx, cps.length);
      let start = 0;
      let end = cps.length;
      while (left && start < end && set.has(cps[start]!)) start++;
      while (right && end > start && set.has(cps[end - 1]!)) end--;
      return cps.slice(start, end).join('');
    };
  };
}

function evalArg(v: Parameters<OpParser>[0], scope: Parameters<OpParser>[1]): Expr {
  return positional([v], scope, '', 1, 1)[0]!;
}

function replaceOp(all: boolean): OpParser {
  return (arg, scope, op) => {
    const spec = named(arg, op, ['input', 'find', 'replacement'], []);
    const parts = [spec.input!, spec.find!, spec.replacement!].map((v) => evalArg(v, scope));
    return (ctx) => {
      const vals = parts.map((e) => evalExpr(e, ctx));
      const names = ["'input'", "'find'", "'replacement'"];
      const strs = vals.map((v, i) => strOrNull(op, v, names[i]!));
      if (strs.some((s) => s === null)) return null;
      const [s, find, repl] = strs as [string, string, string];
      spend(ctx, s.length + find.length);
      if (find === '') {
        if (!all) return capped(op, ctx, repl + s);
        if (s.length + (s.length + 1) * repl.length > MAX_EXPR_STRING) throw tooLong(op);
        return capped(op, ctx, `${repl}${codePoints(s).join(repl)}${s === '' ? '' : repl}`);
      }
      // Bounded before it is built: one replacement per occurrence.
      let count = 0;
      for (const _ of occurrences(s, find)) if (++count > 1 && !all) break;
      if (s.length + Math.min(count, all ? count : 1) * repl.length > MAX_EXPR_STRING) throw tooLong(op);
      return capped(op, ctx, replaceLinear(s, find, repl, all));
    };
  };
}

const unaryString =
  (fn: (s: string, op: string, ctx: Ctx) => Out): OpParser =>
  (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => fn(coerceToString(op, evalExpr(a, ctx)), op, ctx);
  };

register({
  $concat: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => {
      const parts: string[] = [];
      let length = 0;
      for (const e of items) {
        const s = strOrNull(op, evalExpr(e, ctx), 'each argument');
        if (s === null) return null;
        length += s.length;
        if (length > MAX_EXPR_STRING) throw tooLong(op);
        parts.push(s);
      }
      return capped(op, ctx, parts.join(''));
    };
  },
  $toLower: unaryString((s, _op, ctx) =>
    capped(
      '$toLower',
      ctx,
      s.replace(/[A-Z]+/g, (m) => m.toLowerCase()),
    ),
  ),
  $toUpper: unaryString((s, _op, ctx) =>
    capped(
      '$toUpper',
      ctx,
      s.replace(/[a-z]+/g, (m) => m.toUpperCase()),
    ),
  ),
  $strLenCP: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      if (typeof v !== 'string') throw bad(op, `the argument must be a string, not ${typeName(v)}`);
      spend(ctx, v.length);
      return codePoints(v).length;
    };
  },
  $strLenBytes: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      if (typeof v !== 'string') throw bad(op, `the argument must be a string, not ${typeName(v)}`);
      return Buffer.byteLength(v, 'utf8');
    };
  },
  $substrCP: (arg, scope, op) => {
    const [a, b, c] = positional(arg, scope, op, 3, 3) as [Expr, Expr, Expr];
    return (ctx) => {
      const s = coerceToString(op, evalExpr(a, ctx));
      const start = nonNegative(op, evalExpr(b, ctx), 'the starting index');
      const count = nonNegative(op, evalExpr(c, ctx), 'the length');
      spend(ctx, s.length);
      return codePoints(s)
        .slice(start, start + count)
        .join('');
    };
  },
  $substrBytes: (arg, scope, op) => {
    const [a, b, c] = positional(arg, scope, op, 3, 3) as [Expr, Expr, Expr];
    return (ctx) => {
      const bytes = Buffer.from(coerceToString(op, evalExpr(a, ctx)), 'utf8');
      spend(ctx, bytes.length);
      const start = nonNegative(op, evalExpr(b, ctx), 'the starting index');
      const lv = evalExpr(c, ctx);
      const length = typeof lv === 'number' && lv < 0 ? bytes.length : nonNegative(op, lv, 'the length');
      const end = Math.min(bytes.length, start + length);
      const cont = (i: number) => i < bytes.length && (bytes[i]! & 0xc0) === 0x80;
      if (cont(start)) throw bad(op, 'invalid range: starting index is a UTF-8 continuation byte');
      if (end > start && cont(end))
        throw bad(op, 'invalid range: ending index is in the middle of a UTF-8 character');
      return start >= bytes.length ? '' : bytes.subarray(start, end).toString('utf8');
    };
  },
  $split: (arg, scope, op) => {
    const [a, b] = positional(arg, scope, op, 2, 2) as [Expr, Expr];
    return (ctx) => {
      const s = strOrNull(op, evalExpr(a, ctx), 'the string to split');
      const d = evalExpr(b, ctx);
      if (s === null) return null;
      if (typeof d !== 'string') throw bad(op, `the delimiter must be a string, not ${typeName(d)}`);
      if (d === '') throw bad(op, 'the delimiter must not be an empty string');
      spend(ctx, s.length + d.length);
      return splitLinear(s, d);
    };
  },
  $indexOfCP: (arg, scope, op) => {
    const args = positional(arg, scope, op, 2, 4);
    return (ctx) => {
      const vals = args.map((e) => evalExpr(e, ctx));
      const s = strOrNull(op, vals[0], 'the string');
      if (s === null) return null;
      if (typeof vals[1] !== 'string')
        throw bad(op, `the substring must be a string, not ${typeName(vals[1])}`);
      const cps = codePoints(s);
      spend(ctx, s.length + vals[1].length);
      const start = vals[2] === undefined ? 0 : nonNegative(op, vals[2], 'the starting index');
      const end =
        vals[3] === undefined
          ? cps.length
          : Math.min(cps.length, nonNegative(op, vals[3], 'the ending index'));
      // Searched in UTF-16 in linear time (text-search.ts), then mapped back to a code point index.
      if (start > end) return -1;
      const hay = cps.slice(0, end).join('');
      const from = cps.slice(0, start).join('').length;
      const at = indexOfLinear(hay, vals[1], from);
      return at < 0 ? -1 : codePoints(hay.slice(0, at)).length;
    };
  },
  $trim: trimOp(true, true),
  $ltrim: trimOp(true, false),
  $rtrim: trimOp(false, true),
  $replaceOne: replaceOp(false),
  $replaceAll: replaceOp(true),
});

function nonNegative(op: string, v: Out, what: string): number {
  const n = integral(op, v, what);
  if (n < 0) throw bad(op, `${what} must be non-negative`);
  return n;
}
