// Decimal128 values (bson's Decimal128) in the value model: produced by $toDecimal and $convert, compared and
// sorted exactly with ints, longs and doubles (MongoDB's numeric order), keyed for grouping and sorting, and
// written as {"$numberDecimal": "..."} on the wire. Decimal arithmetic is not implemented: other operators
// refuse a decimal operand (400 naming them), and a decimal cannot be stored (docs/query-engine-js.md).
import { Decimal128 } from 'bson';

export { Decimal128 };

export const isDecimal = (v: unknown): v is Decimal128 => v instanceof Decimal128;

/** A finite decimal as sign × coefficient × 10^exp, or a special value. */
export type DecimalParts =
  | { kind: 'finite'; neg: boolean; coef: bigint; exp: number }
  | { kind: 'nan' }
  | { kind: 'inf'; neg: boolean };

const FORM = /^(-)?(\d+)(?:\.(\d+))?(?:E([+-]\d+))?$/;

export function decimalParts(d: Decimal128): DecimalParts {
  const text = d.toString();
  if (text === 'NaN') return { kind: 'nan' };
  if (text === 'Infinity' || text === '-Infinity') return { kind: 'inf', neg: text.startsWith('-') };
  const m = FORM.exec(text)!;
  const frac = m[3] ?? '';
  return {
    kind: 'finite',
    neg: m[1] === '-',
    coef: BigInt(m[2]! + frac),
    exp: Number(m[4] ?? 0) - frac.length,
  };
}

/** An exact rational num / den (den > 0). */
interface Ratio {
  num: bigint;
  den: bigint;
}

function decimalRatio(p: Extract<DecimalParts, { kind: 'finite' }>): Ratio {
  const signed = p.neg ? -p.coef : p.coef;
  return p.exp >= 0
    ? { num: signed * 10n ** BigInt(p.exp), den: 1n }
    : { num: signed, den: 10n ** BigInt(-p.exp) };
}

/** The exact value of a finite double. */
function doubleRatio(x: number): Ratio {
  if (x === 0) return { num: 0n, den: 1n };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp2: number;
  if (e === 0) exp2 = -1074;
  else {
    mant |= 1n << 52n;
    exp2 = e - 1075;
  }
  const num = neg ? -mant : mant;
  return exp2 >= 0 ? { num: num << BigInt(exp2), den: 1n } : { num, den: 1n << BigInt(-exp2) };
}

const cmpRatio = (a: Ratio, b: Ratio): number => {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l === r ? 0 : l < r ? -1 : 1;
};

/** Position on the extended line: NaN lowest, then -Infinity, finite values, +Infinity. */
function classOf(v: number | bigint | Decimal128): { rank: number; ratio?: Ratio } {
  if (typeof v === 'bigint') return { rank: 2, ratio: { num: v, den: 1n } };
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { rank: 0 };
    if (!Number.isFinite(v)) return { rank: v > 0 ? 3 : 1 };
    return { rank: 2, ratio: doubleRatio(v) };
  }
  const p = decimalParts(v);
  if (p.kind === 'nan') return { rank: 0 };
  if (p.kind === 'inf') return { rank: p.neg ? 1 : 3 };
  return { rank: 2, ratio: decimalRatio(p) };
}

/** Exact numeric order of two numbers at least one of which is a decimal (NaN equal to NaN, lowest). */
export function compareWithDecimal(a: number | bigint | Decimal128, b: number | bigint | Decimal128): number {
  const x = classOf(a);
  const y = classOf(b);
  if (x.rank !== y.rank) return x.rank < y.rank ? -1 : 1;
  return x.ratio === undefined ? 0 : cmpRatio(x.ratio, y.ratio!);
}

/**
 * How a decimal's sort key is built (key-encoding.ts): the nearest double f, an integer remainder r (as a long
 * beyond 2^53 has) and, when the value lies strictly between f + r and f + r + 1, the digits of that fraction
 * (`digits`, without trailing zeros). Past 2^64, where no long lives and the gap between doubles is wider than
 * the remainder can hold, r is -1 or 0 and the fraction is of the gap instead. A decimal equal to a double or a
 * long gets exactly its key.
 */
export function decimalKeyParts(d: Decimal128): { f: number; r: number; digits: string } {
  const p = decimalParts(d);
  if (p.kind === 'nan') return { f: Number.NaN, r: 0, digits: '' };
  if (p.kind === 'inf') return { f: p.neg ? -Infinity : Infinity, r: 0, digits: '' };
  const f = Number(d.toString());
  const exact = decimalRatio(p);
  // Callers never make one (decimalInRange); kept exact in order if they did: beyond every finite double.
  if (!Number.isFinite(f)) return { f, r: 0, digits: '' };
  const base = doubleRatio(f);
  // diff = exact - f, as a ratio.
  let diff: Ratio = { num: exact.num * base.den - base.num * exact.den, den: exact.den * base.den };
  if (diff.num === 0n) return { f, r: 0, digits: '' };
  if (Math.abs(f) >= 2 ** 64) {
    const gap = doubleRatio(ulp(f));
    diff = { num: diff.num * gap.den, den: diff.den * gap.num };
  }
  const r = floorDiv(diff.num, diff.den);
  return { f, r: Number(r), digits: fractionDigits({ num: diff.num - r * diff.den, den: diff.den }) };
}

function ulp(f: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(f));
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0) - Math.abs(f);
}

function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n !== d < 0n ? q - 1n : q;
}

/** The decimal digits after the point of a ratio in [0, 1) whose denominator divides a power of ten. */
function fractionDigits(r: Ratio): string {
  if (r.num === 0n) return '';
  let den = r.den;
  let twos = 0;
  let fives = 0;
  while (den % 2n === 0n) {
    den /= 2n;
    twos++;
  }
  while (den % 5n === 0n) {
    den /= 5n;
    fives++;
  }
  const n = Math.max(twos, fives);
  const scaled = (r.num * 10n ** BigInt(n)) / r.den;
  return scaled.toString().padStart(n, '0').replace(/0+$/, '');
}

/** Finite decimals beyond the doubles' range (past ±1.8E+308) are refused: their keys would not be exact. */
export function decimalInRange(d: Decimal128): boolean {
  const p = decimalParts(d);
  return p.kind !== 'finite' || Number.isFinite(Number(d.toString()));
}

/** Whether a decimal is zero (any sign or exponent). */
export function decimalIsZero(d: Decimal128): boolean {
  const p = decimalParts(d);
  return p.kind === 'finite' && p.coef === 0n;
}

/** The decimal truncated toward zero, or undefined for NaN and infinities. */
export function decimalTrunc(d: Decimal128): bigint | undefined {
  const p = decimalParts(d);
  if (p.kind !== 'finite') return undefined;
  const r = decimalRatio(p);
  return r.num / r.den;
}

/** MongoDB's Decimal128(double): the double rounded to 15 significant digits, half to even, zeros kept. */
export function decimalFromDouble(x: number): Decimal128 {
  if (Number.isNaN(x)) return Decimal128.fromString('NaN');
  if (!Number.isFinite(x)) return Decimal128.fromString(x > 0 ? 'Infinity' : '-Infinity');
  if (x === 0) return Decimal128.fromString('0');
  const { num, den } = doubleRatio(Math.abs(x));
  // The exponent e with 10^14 <= |x| / 10^e < 10^15, found from the digit count of the integer part.
  let e = Math.floor(Math.log10(Math.abs(x))) - 14;
  const scaled = (k: number): Ratio =>
    k >= 0 ? { num, den: den * 10n ** BigInt(k) } : { num: num * 10n ** BigInt(-k), den };
  let s = scaled(e);
  if (s.num < 10n ** 14n * s.den) s = scaled(--e);
  if (s.num >= 10n ** 15n * s.den) s = scaled(++e);
  let coef = s.num / s.den;
  const rest = s.num - coef * s.den;
  if (rest * 2n > s.den || (rest * 2n === s.den && coef % 2n === 1n)) coef++;
  if (coef === 10n ** 15n) {
    coef /= 10n;
    e++;
  }
  return Decimal128.fromString(`${x < 0 ? '-' : ''}${coef}E${e}`);
}

/** A string as a decimal (MongoDB's Decimal128 parser: digits, a point, an exponent, NaN, Inf[inity]). */
export function decimalFromString(s: string): Decimal128 | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(s)) return undefined;
  try {
    return Decimal128.fromStringWithRounding(s.replace(/^\+/, ''));
  } catch {
    return undefined;
  }
}
