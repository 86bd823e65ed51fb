// Dates: $year $month $dayOfMonth $dayOfWeek $dayOfYear $hour $minute $second $millisecond $week $isoWeek
// $isoWeekYear $isoDayOfWeek $dateToString $dateFromString $dateToParts $dateFromParts, in UTC or a fixed offset.
import { type Doc, isDoc, type Value } from '../values.js';
import { integral, isNullish, named, optExpr, typeName } from './args.js';
import { bad, type Ctx, type Expr, evalExpr, type OpParser, type Out, parseExpr, register } from './core.js';
import { checkParseFormat, NOT_ISO, parseIso, parseWithFormat } from './date-parse.js';
import { checkFormat, dateArg, formatDate, fromFields, offsetOf, type Parts, partsOf } from './date-util.js';

const DEFAULT_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ';

/** {$year: date}, {$year: [date]} or {$year: {date, timezone}}. */
function partOp(part: keyof Parts): OpParser {
  return (arg, scope, op) => {
    let spec: { date: Value; timezone?: Value } = { date: arg };
    if (Array.isArray(arg)) {
      if (arg.length !== 1) throw bad(op, `expected exactly 1 argument, got ${arg.length}`);
      spec = { date: arg[0]! };
    } else if (isDoc(arg) && !Object.keys(arg)[0]?.startsWith('$')) {
      const n = named(arg, op, ['date'], ['timezone']);
      spec = { date: n.date!, timezone: n.timezone };
    }
    const date = parseExpr(spec.date, scope);
    const tz = optExpr(spec.timezone, scope);
    return (ctx) => {
      const d = dateArg(op, evalExpr(date, ctx));
      const tv = tz === undefined ? undefined : evalExpr(tz, ctx);
      if (d === null || (tz !== undefined && isNullish(tv))) return null;
      return partsOf(d, offsetOf(op, tv))[part];
    };
  };
}

/** Evaluates a timezone operand: undefined when absent, null when it is null or missing. */
function tzOf(op: string, tz: Expr | undefined, ctx: Ctx): number | null {
  if (tz === undefined) return 0;
  const v = evalExpr(tz, ctx);
  return isNullish(v) ? null : offsetOf(op, v);
}

const PART_RANGE = 32767;

/** Year 1–9999; month, day, hour and minute (and the ISO week and day) ±32,767; seconds and ms any integer. */
function rangeOf(i: number): [number, number] {
  if (i === 0) return [1, 9999];
  if (i >= 5) return [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
  return [-PART_RANGE - 1, PART_RANGE];
}

function partValue(op: string, v: Out, name: string, min: number, max: number): number {
  const n = integral(op, v, `'${name}'`);
  if (n < min || n > max)
    throw bad(op, `'${name}' must evaluate to an integer in the range ${min} to ${max}`);
  return n;
}

function fromParts(): OpParser {
  return (arg, scope, op) => {
    if (!isDoc(arg)) throw bad(op, 'expected a document of date parts');
    const iso = Object.hasOwn(arg, 'isoWeekYear');
    const head = iso ? ['isoWeekYear', 'isoWeek', 'isoDayOfWeek'] : ['year', 'month', 'day'];
    const spec = named(
      arg,
      op,
      [head[0]!],
      [...head.slice(1), 'hour', 'minute', 'second', 'millisecond', 'timezone'],
    );
    const names = [...head, 'hour', 'minute', 'second', 'millisecond'];
    const exprs = names.map((n) => optExpr(spec[n], scope));
    const tz = optExpr(spec.timezone, scope);
    return (ctx) => {
      const vals = exprs.map((e) => (e === undefined ? undefined : evalExpr(e, ctx)));
      if (vals.some((v, i) => exprs[i] !== undefined && isNullish(v))) return null;
      const offset = tzOf(op, tz, ctx);
      if (offset === null) return null;
      const dflt = [0, 1, 1, 0, 0, 0, 0];
      const nums = vals.map((v, i) =>
        v === undefined ? (i === 0 ? 0 : dflt[i]!) : partValue(op, v, names[i]!, ...rangeOf(i)),
      );
      const [a, b, c, h, mi, s, ms] = nums as [number, number, number, number, number, number, number];
      const ms0 = iso ? isoStart(a, b, c) : fromFields(a, b, c, 0, 0, 0, 0, 0);
      const t = ms0 + ((h * 60 + mi) * 60 + s) * 1000 + ms - offset * 60_000;
      const d = new Date(t);
      if (Number.isNaN(d.getTime())) throw bad(op, 'the date is out of range');
      return d;
    };
  };
}

/** UTC midnight of ISO week-year y, week w, day d (1 = Monday). */
function isoStart(y: number, w: number, d: number): number {
  const jan4 = fromFields(y, 1, 4, 0, 0, 0, 0, 0);
  const jan4Iso = ((new Date(jan4).getUTCDay() + 6) % 7) + 1;
  return jan4 + ((w - 1) * 7 + (d - 1) - (jan4Iso - 1)) * 86_400_000;
}

register({
  $year: partOp('year'),
  $month: partOp('month'),
  $dayOfMonth: partOp('day'),
  $dayOfWeek: partOp('dayOfWeek'),
  $dayOfYear: partOp('dayOfYear'),
  $hour: partOp('hour'),
  $minute: partOp('minute'),
  $second: partOp('second'),
  $millisecond: partOp('millisecond'),
  $week: partOp('week'),
  $isoWeek: partOp('isoWeek'),
  $isoWeekYear: partOp('isoWeekYear'),
  $isoDayOfWeek: partOp('isoDayOfWeek'),
  $dateToString: (arg, scope, op) => {
    const spec = named(arg, op, ['date'], ['format', 'timezone', 'onNull']);
    if (typeof spec.format === 'string') checkFormat(op, spec.format);
    const [date, format, tz, onNull] = [spec.date, spec.format, spec.timezone, spec.onNull].map((v) =>
      optExpr(v, scope),
    );
    return (ctx) => {
      const d = dateArg(op, evalExpr(date!, ctx));
      const fv = format === undefined ? undefined : evalExpr(format, ctx);
      const offset = tzOf(op, tz, ctx);
      if (d === null) return onNull === undefined ? null : evalExpr(onNull, ctx);
      if ((format !== undefined && isNullish(fv)) || offset === null) return null;
      if (fv !== undefined && typeof fv !== 'string')
        throw bad(op, `'format' must be a string, not ${typeName(fv)}`);
      // The default keeps its Z even with a timezone (MongoDB's date_to_string.js).
      return formatDate(op, d, fv ?? DEFAULT_FORMAT, offset);
    };
  },
  $dateFromString: (arg, scope, op) => {
    const spec = named(arg, op, ['dateString'], ['format', 'timezone', 'onError', 'onNull']);
    if (typeof spec.format === 'string') checkParseFormat(op, spec.format);
    const [str, format, tz, onError, onNull] = [
      spec.dateString,
      spec.format,
      spec.timezone,
      spec.onError,
      spec.onNull,
    ].map((v) => optExpr(v, scope));
    return (ctx) => {
      const s = evalExpr(str!, ctx);
      if (isNullish(s)) return onNull === undefined ? null : evalExpr(onNull, ctx);
      const offset = tzOf(op, tz, ctx);
      const fv = format === undefined ? undefined : evalExpr(format, ctx);
      if (offset === null || (format !== undefined && isNullish(fv))) return null;
      const failed = (why: string) => {
        if (onError !== undefined) return evalExpr(onError, ctx);
        throw bad(op, why);
      };
      if (typeof s !== 'string') return failed(`'dateString' must be a string, not ${typeName(s)}`);
      if (fv !== undefined && typeof fv !== 'string')
        throw bad(op, `'format' must be a string, not ${typeName(fv)}`);
      if (fv !== undefined) checkParseFormat(op, fv);
      const parsed = fv === undefined ? parseIso(s, offset) : parseWithFormat(s, fv, offset);
      // Without a format, a string this parser cannot read might still be one MongoDB's reads: 400, not onError.
      if (parsed === undefined && fv === undefined) throw bad(op, NOT_ISO);
      if (parsed === undefined) return failed(`error parsing date string '${s}' with format '${fv}'`);
      if (parsed.zoned && tz !== undefined)
        return failed('the string names a timezone and a timezone argument is given');
      return parsed.date;
    };
  },
  $dateToParts: (arg, scope, op) => {
    const spec = named(arg, op, ['date'], ['timezone', 'iso8601']);
    const [date, tz, iso] = [spec.date, spec.timezone, spec.iso8601].map((v) => optExpr(v, scope));
    return (ctx) => {
      const d = dateArg(op, evalExpr(date!, ctx));
      const offset = tzOf(op, tz, ctx);
      const iv = iso === undefined ? false : evalExpr(iso, ctx);
      if (d === null || offset === null || isNullish(iv)) return null;
      if (typeof iv !== 'boolean') throw bad(op, `'iso8601' must be a boolean, not ${typeName(iv)}`);
      const p = partsOf(d, offset);
      const head: Doc = iv
        ? { isoWeekYear: p.isoWeekYear, isoWeek: p.isoWeek, isoDayOfWeek: p.isoDayOfWeek }
        : { year: p.year, month: p.month, day: p.day };
      return { ...head, hour: p.hour, minute: p.minute, second: p.second, millisecond: p.millisecond };
    };
  },
  $dateFromParts: fromParts(),
});
