// Date strings: the ISO 8601 forms $dateFromString and $toDate read without a format, and $dateFromString's
// format specifiers (%Y %m %d %H %M %S %L %j %z %Z %%). Other free-form dates MongoDB's parser guesses at
// ("Jan 5 2020") are not parsed: such strings fail (onError applies), never a guess.
import { checkFormat, fromFields } from './date-util.js';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|GMT|(?:GMT)?[+-]\d{2}(?::?\d{2})?)?$/;

export interface ParsedDate {
  date: Date;
  /** True when the string named its own zone (then a timezone operand is an error in $dateFromString). */
  zoned: boolean;
}

function zoneMinutes(zone: string): number {
  const z = zone.startsWith('GMT') && zone.length > 3 ? zone.slice(3) : zone;
  if (z === 'Z' || z === 'UTC' || z === 'GMT') return 0;
  const digits = z.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return z[0] === '-' ? -minutes : minutes;
}

function valid(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  const days = new Date(Date.UTC(2000, mo, 0)).getUTCDate();
  const leapOk = !(mo === 2 && d === 29) || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0));
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && leapOk && h < 24 && mi < 60 && s < 60;
}

/** An ISO 8601 date string at `offset` minutes unless it names its zone; undefined when it is not one. */
export function parseIso(s: string, offset = 0): ParsedDate | undefined {
  const m = ISO.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as number[];
  if (!valid(y!, mo!, d!, h!, mi!, sec!)) return undefined;
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const zoned = m[8] !== undefined;
  const at = zoned ? zoneMinutes(m[8]!) : offset;
  return { date: new Date(fromFields(y!, mo!, d!, h!, mi!, sec!, ms, at)), zoned };
}

/**
 * A date string without a format: ISO 8601 as above, or undefined. MongoDB's parser also reads forms this one
 * does not (other separators, zone abbreviations such as CEST, military zones), so a caller must not treat
 * undefined as "MongoDB fails here" (that would answer onError where MongoDB answers a date): it answers 400.
 */
export function parseDateText(s: string): Date | undefined {
  return parseIso(s)?.date;
}

/** The 400 for a string without a format that is not ISO 8601. */
export const NOT_ISO = 'only ISO 8601 date strings are read without a format (pass a format for other forms)';

const FIELD_WIDTH: Record<string, [number, number]> = {
  Y: [4, 4],
  m: [1, 2],
  d: [1, 2],
  H: [1, 2],
  M: [1, 2],
  S: [1, 2],
  L: [1, 3],
  j: [1, 3],
};
const PARSE_SPECIFIERS = Object.fromEntries(
  ['Y', 'm', 'd', 'H', 'M', 'S', 'L', 'j', 'z', 'Z', '%'].map((c) => [c, () => '']),
);

export function checkParseFormat(op: string, format: string): void {
  checkFormat(op, format, PARSE_SPECIFIERS);
}

/** Parses with a format; undefined when the string does not match it. */
export function parseWithFormat(s: string, format: string, offset: number): ParsedDate | undefined {
  const f: Record<string, number> = { Y: 1970, m: 1, d: 1, H: 0, M: 0, S: 0, L: 0 };
  let zone: number | undefined;
  let pos = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%' || format[i + 1] === '%') {
      if (s[pos] !== c) return undefined;
      pos++;
      if (c === '%') i++;
      continue;
    }
    const spec = format[++i]!;
    if (spec === 'z' || spec === 'Z') {
      const m =
        spec === 'z' ? /^(Z|[+-]\d{2}(?::?\d{2})?)/.exec(s.slice(pos)) : /^[+-]?\d{1,4}/.exec(s.slice(pos));
      if (m === null) return undefined;
      zone = spec === 'z' ? zoneMinutes(m[0]) : Number(m[0]);
      pos += m[0].length;
      continue;
    }
    const [min, max] = FIELD_WIDTH[spec]!;
    const m = new RegExp(`^\\d{${min},${max}}`).exec(s.slice(pos));
    if (m === null) return undefined;
    f[spec] = spec === 'L' ? Number(m[0].padEnd(3, '0')) : Number(m[0]);
    pos += m[0].length;
  }
  if (pos !== s.length) return undefined;
  const dayOfYear = f.j;
  if (dayOfYear !== undefined) [f.m, f.d] = [1, dayOfYear];
  else if (!valid(f.Y!, f.m!, f.d!, f.H!, f.M!, f.S!)) return undefined;
  const at = zone ?? offset;
  return {
    date: new Date(fromFields(f.Y!, f.m!, f.d!, f.H!, f.M!, f.S!, f.L!, at)),
    zoned: zone !== undefined,
  };
}
