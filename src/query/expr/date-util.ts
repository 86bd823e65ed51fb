// Calendar arithmetic for the date operators, in UTC or a fixed offset: parts of a date (with ISO and
// Sunday-based weeks), timezones, and $dateToString's format. Olson zone names other than UTC/GMT answer 400
// (their rules cannot be applied exactly without a zone database).
import { ObjectId } from 'bson';
import { typeName } from './args.js';
import { bad, type Out } from './core.js';

const DAY = 86_400_000;

export interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** 1–366 */
  dayOfYear: number;
  /** 1 (Sunday) – 7 (Saturday) */
  dayOfWeek: number;
  /** Sunday-based week of the year, 0–53 (strftime %U). */
  week: number;
  isoWeek: number;
  isoWeekYear: number;
  /** 1 (Monday) – 7 (Sunday) */
  isoDayOfWeek: number;
}

/** A timezone operand as minutes east of UTC: UTC/GMT or an offset ±hh, ±hhmm, ±hh:mm. */
export function offsetOf(op: string, tz: Out): number {
  if (tz === undefined) return 0;
  if (typeof tz !== 'string') throw bad(op, `timezone must be a string, not ${typeName(tz)}`);
  if (['UTC', 'GMT', 'Etc/UTC', 'Etc/GMT', 'Z', 'UCT', 'Etc/UCT', 'Zulu', 'Etc/Zulu'].includes(tz)) return 0;
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(tz);
  if (m === null)
    throw bad(
      op,
      `timezone '${tz}' is not supported: only UTC and fixed offsets (+hh:mm) are evaluated exactly`,
    );
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/** A date operand: a date, or an ObjectId's timestamp; null for null/missing; else 400. */
export function dateArg(op: string, v: Out, what = 'the date'): Date | null {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v;
  if (v instanceof ObjectId) return new Date(v.getTimestamp().getTime());
  throw bad(op, `${what} must be a date or an ObjectId, not ${typeName(v)}`);
}

/** The wall-clock parts of a date at a fixed offset (minutes east of UTC). */
export function partsOf(d: Date, offset: number): Parts {
  const local = new Date(d.getTime() + offset * 60_000);
  const year = local.getUTCFullYear();
  const dayOfYear = Math.floor((local.getTime() - Date.UTC(year, 0, 1)) / DAY) + 1;
  const dow0 = local.getUTCDay();
  const isoDayOfWeek = ((dow0 + 6) % 7) + 1;
  // The ISO week is the week of its Thursday, and belongs to the Thursday's year.
  const thursday = new Date(local.getTime() + (4 - isoDayOfWeek) * DAY);
  const isoWeekYear = thursday.getUTCFullYear();
  const thursdayYday = Math.floor((thursday.getTime() - Date.UTC(isoWeekYear, 0, 1)) / DAY);
  return {
    year,
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    millisecond: local.getUTCMilliseconds(),
    dayOfYear,
    dayOfWeek: dow0 + 1,
    week: Math.floor((dayOfYear - 1 + 7 - dow0) / 7),
    isoWeek: Math.floor(thursdayYday / 7) + 1,
    isoWeekYear,
    isoDayOfWeek,
  };
}

/** UTC milliseconds of wall-clock fields at an offset; fields may overflow their ranges (they carry). */
export function fromFields(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
  offset: number,
): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime() - offset * 60_000;
}

const pad = (n: number, width: number) =>
  n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0');

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** $dateToString's specifiers. */
const SPECIFIERS: Record<string, (p: Parts, offset: number) => string> = {
  b: (p) => MONTHS[p.month - 1]!.slice(0, 3),
  B: (p) => MONTHS[p.month - 1]!,
  d: (p) => pad(p.day, 2),
  G: (p) => pad(p.isoWeekYear, 4),
  H: (p) => pad(p.hour, 2),
  j: (p) => pad(p.dayOfYear, 3),
  L: (p) => pad(p.millisecond, 3),
  m: (p) => pad(p.month, 2),
  M: (p) => pad(p.minute, 2),
  S: (p) => pad(p.second, 2),
  w: (p) => String(p.dayOfWeek),
  u: (p) => String(p.isoDayOfWeek),
  U: (p) => pad(p.week, 2),
  V: (p) => pad(p.isoWeek, 2),
  Y: (p) => pad(p.year, 4),
  z: (_p, o) => `${o < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(o) / 60), 2)}${pad(Math.abs(o) % 60, 2)}`,
  Z: (_p, o) => String(o),
  '%': () => '%',
};

/** Checks a format once: every % is followed by a known specifier. */
export function checkFormat(op: string, format: string, known = SPECIFIERS): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    const c = format[++i];
    if (c === undefined || !Object.hasOwn(known, c)) throw bad(op, `invalid format character '%${c ?? ''}'`);
  }
}

export function formatDate(op: string, d: Date, format: string, offset: number): string {
  checkFormat(op, format);
  const p = partsOf(d, offset);
  if (p.year < 0 || p.year > 9999) throw bad(op, 'the date is outside the years 0–9999 it can print');
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    out += c === '%' ? SPECIFIERS[format[++i]!]!(p, offset) : c;
  }
  return out;
}
