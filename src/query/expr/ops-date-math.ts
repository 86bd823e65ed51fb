// Date arithmetic: $dateAdd $dateSubtract $dateDiff $dateTrunc, in UTC or a fixed offset. Months, quarters and
// years are calendar units (an added month clamps to the month's last day); weeks start on `startOfWeek`.
// $dateTrunc bins count from 2000-01-01T00:00 local time (weeks from the first startOfWeek on or after it).
import type { Value } from '../values.js';
import { integral, isNullish, named, optExpr } from './args.js';
import { bad, type Ctx, type Expr, evalExpr, type OpParser, type Out, register } from './core.js';
import { dateArg, fromFields, offsetOf, partsOf } from './date-util.js';

const DAY = 86_400_000;
const FIXED: Record<string, number> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: DAY,
  week: 7 * DAY,
};
const MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function unitOf(op: string, v: Out): string {
  if (typeof v !== 'string' || !(Object.hasOwn(FIXED, v) || Object.hasOwn(MONTHS, v)))
    throw bad(op, `'unit' must be one of year, quarter, month, week, day, hour, minute, second, millisecond`);
  return v;
}

/** 0 (Sunday) – 6 (Saturday) from a full or three-letter day name, any case. */
function startOfWeekOf(op: string, v: Out): number {
  if (v === undefined) return 0;
  const s = typeof v === 'string' ? v.toLowerCase() : '';
  const i = DAYS.findIndex((d) => d === s || d.slice(0, 3) === s);
  if (i < 0) throw bad(op, "'startOfWeek' must be a day of the week");
  return i;
}

function checked(op: string, ms: number): Date {
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime())) throw bad(op, 'the resulting date is out of range');
  return d;
}

/** Adds calendar months at an offset, clamping the day to the target month's length. */
function addMonths(d: Date, months: number, offset: number): number {
  const p = partsOf(d, offset);
  const total = p.year * 12 + (p.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  const lengths = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  const day = Math.min(p.day, lengths[month - 1]!);
  return fromFields(year, month, day, p.hour, p.minute, p.second, p.millisecond, offset);
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** Evaluates named operands; null when one that is present evaluates to null or missing. */
function evalNamed(ctx: Ctx, exprs: Record<string, Expr | undefined>): Record<string, Out> | null {
  const out: Record<string, Out> = {};
  for (const [k, e] of Object.entries(exprs)) {
    if (e === undefined) continue;
    const v = evalExpr(e, ctx);
    if (isNullish(v)) return null;
    out[k] = v;
  }
  return out;
}

function parseAll(
  arg: Value,
  scope: Parameters<OpParser>[1],
  op: string,
  required: string[],
  optional: string[],
) {
  const spec = named(arg, op, required, optional);
  const exprs: Record<string, Expr | undefined> = {};
  for (const k of [...required, ...optional]) exprs[k] = optExpr(spec[k], scope);
  return exprs;
}

function addOp(sign: 1 | -1): OpParser {
  return (arg, scope, op) => {
    const exprs = parseAll(arg, scope, op, ['startDate', 'unit', 'amount'], ['timezone']);
    return (ctx) => {
      const v = evalNamed(ctx, exprs);
      if (v === null) return null;
      const d = dateArg(op, v.startDate, "'startDate'")!;
      const unit = unitOf(op, v.unit);
      const amount = integral(op, v.amount, "'amount'") * sign;
      const offset = offsetOf(op, v.timezone);
      if (Object.hasOwn(MONTHS, unit)) return checked(op, addMonths(d, amount * MONTHS[unit]!, offset));
      return checked(op, d.getTime() + amount * FIXED[unit]!);
    };
  };
}

/** The index of the unit period holding local time `t` (ms since the epoch, local). */
function periodIndex(t: number, unit: string, startOfWeek: number): number {
  if (unit === 'week') {
    const days = Math.floor(t / DAY);
    // 1970-01-01 was a Thursday (4): shift so that a period starts on startOfWeek.
    return Math.floor((days + ((4 - startOfWeek + 7) % 7)) / 7);
  }
  if (Object.hasOwn(FIXED, unit)) return Math.floor(t / FIXED[unit]!);
  const p = partsOf(new Date(t), 0);
  return Math.floor((p.year * 12 + p.month - 1) / MONTHS[unit]!);
}

register({
  $dateAdd: addOp(1),
  $dateSubtract: addOp(-1),
  $dateDiff: (arg, scope, op) => {
    const exprs = parseAll(arg, scope, op, ['startDate', 'endDate', 'unit'], ['timezone', 'startOfWeek']);
    return (ctx) => {
      const v = evalNamed(ctx, exprs);
      if (v === null) return null;
      const a = dateArg(op, v.startDate, "'startDate'")!;
      const b = dateArg(op, v.endDate, "'endDate'")!;
      const unit = unitOf(op, v.unit);
      const offset = offsetOf(op, v.timezone) * 60_000;
      const sow = unit === 'week' ? startOfWeekOf(op, v.startOfWeek) : 0;
      const diff =
        periodIndex(b.getTime() + offset, unit, sow) - periodIndex(a.getTime() + offset, unit, sow);
      return BigInt(diff);
    };
  },
  $dateTrunc: (arg, scope, op) => {
    const exprs = parseAll(arg, scope, op, ['date', 'unit'], ['binSize', 'timezone', 'startOfWeek']);
    return (ctx) => {
      const v = evalNamed(ctx, exprs);
      if (v === null) return null;
      const d = dateArg(op, v.date)!;
      const unit = unitOf(op, v.unit);
      const bin = v.binSize === undefined ? 1 : integral(op, v.binSize, "'binSize'");
      if (bin < 1 || bin > 1e11) throw bad(op, "'binSize' must be a positive integer");
      const offset = offsetOf(op, v.timezone) * 60_000;
      const local = d.getTime() + offset;
      const ref = Date.UTC(2000, 0, 1);
      if (Object.hasOwn(MONTHS, unit)) {
        const p = partsOf(new Date(local), 0);
        const months = (p.year - 2000) * 12 + p.month - 1;
        const step = bin * MONTHS[unit]!;
        const start = Math.floor(months / step) * step;
        return checked(op, fromFields(2000, start + 1, 1, 0, 0, 0, 0, 0) - offset);
      }
      let base = ref;
      if (unit === 'week') {
        // The first startOfWeek on or after 2000-01-01 (a Saturday), as MongoDB's bins of weeks count.
        const sow = startOfWeekOf(op, v.startOfWeek);
        base = ref + ((sow - 6 + 7) % 7) * DAY;
      }
      const size = bin * FIXED[unit]!;
      return checked(op, base + Math.floor((local - base) / size) * size - offset);
    };
  },
});
