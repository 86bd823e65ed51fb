// $sum and $avg arithmetic as MongoDB does it: double-double compensated summation, exact integer totals,
// and the result type of the widest input (int → long on overflow → double past int64).
import type { Value } from './values.js';

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const TWO_32 = 2n ** 32n;

/**
 * A sum kept as an unevaluated pair (sum, addend) with 2Sum and Fast2Sum, as MongoDB's DoubleDoubleSummation
 * does, so that sums of doubles round exactly as MongoDB's do (not as a naive left-to-right sum would).
 */
class DoubleDouble {
  private sum = 0;
  private addend = 0;
  /** A plain sum, returned when the compensated sum turned into NaN (infinities). */
  private special = 0;

  addDouble(x: number): void {
    this.special += x;
    // Fast2Sum(x, addend): the addend is tinier than the running sum.
    const s1 = x + this.addend;
    const t1 = this.addend - (s1 - x);
    // 2Sum(sum, s1): s1 may be larger than the running sum.
    const s2 = this.sum + s1;
    const aPrime = s2 - s1;
    const bPrime = s2 - aPrime;
    const t2 = this.sum - aPrime + (s1 - bPrime);
    this.sum = s2;
    this.addend = t1 + t2;
  }

  /** A long is split into two doubles (high and low 32 bits) so the sum stays exact. */
  addLong(x: bigint): void {
    const high = (x / TWO_32) * TWO_32;
    this.addDouble(Number(x - high));
    this.addDouble(Number(high));
  }

  getDouble(): number {
    return Number.isNaN(this.sum) ? this.special : this.sum;
  }
}

type Width = 'int' | 'long' | 'double';

/** The running state of $sum (and the numeric part of $avg). */
export class NumericTotal {
  private readonly dd = new DoubleDouble();
  private exact = 0n;
  private width: Width = 'int';
  count = 0;

  /** Adds a value when it is a number; other values are ignored, as $sum and $avg ignore them. */
  add(v: Value | undefined): void {
    if (typeof v === 'bigint') {
      this.dd.addLong(v);
      this.exact += v;
      if (this.width === 'int') this.width = 'long';
    } else if (typeof v === 'number') {
      this.dd.addDouble(v);
      if (isInt32(v)) this.exact += BigInt(v);
      else this.width = 'double';
    } else {
      return;
    }
    this.count++;
  }

  /** $sum's result: int if all inputs were ints and it fits, long if it fits int64, double otherwise. */
  sum(): number | bigint {
    if (this.width === 'double' || this.exact < LONG_MIN || this.exact > LONG_MAX) return this.dd.getDouble();
    if (this.width === 'int' && this.exact >= INT_MIN && this.exact <= INT_MAX) return Number(this.exact);
    return this.exact;
  }

  /** $avg's result: null for no numbers, else the double sum divided by the count. */
  average(): number | null {
    return this.count === 0 ? null : this.dd.getDouble() / this.count;
  }
}

function isInt32(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 && !Object.is(n, -0);
}

/**
 * $sum of a constant number ({$sum: 1} counts): MongoDB 7+ adds it plainly in the constant's type, an int
 * total becoming a long on overflow and a long total a double, with no compensation for doubles.
 */
export class ConstantTotal {
  private total: number | bigint;
  private width: Width;

  constructor(private readonly addend: number | bigint) {
    this.width = typeof addend === 'bigint' ? 'long' : isInt32(addend) ? 'int' : 'double';
    this.total = this.width === 'long' ? 0n : 0;
  }

  add(): void {
    if (this.width === 'int') {
      const next = (this.total as number) + (this.addend as number);
      if (isInt32(next)) {
        this.total = next;
        return;
      }
      [this.width, this.total] = ['long', BigInt(this.total)];
    }
    if (this.width === 'long') {
      const next = (this.total as bigint) + BigInt(this.addend);
      if (next >= LONG_MIN && next <= LONG_MAX) {
        this.total = next;
        return;
      }
      [this.width, this.total] = ['double', Number(this.total)];
    }
    this.total = (this.total as number) + Number(this.addend);
  }

  sum(): number | bigint {
    return this.total;
  }
}
