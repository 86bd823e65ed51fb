// $bucketAuto's granularity: MongoDB's GranularityRounder. The preferred number series (Renard R5-R80, 1-2-5,
// E6-E192) round a non-negative number up to the next series value strictly above it and down to the series
// value strictly below it, scaled by powers of ten; POWERSOF2 rounds to the next power of two above or below.
// The arithmetic is MongoDB's, step for step (the multiplier grows by *= 10 and shrinks by /= 10, so a bound
// like 16 * 0.1 is the double 1.6000000000000001 there and here), and the results are doubles, except that
// POWERSOF2 computes 2^e with $pow (an int, a long past int32, a double for negative e).
import { pow } from './expr/ops-arith.js';
import { pipelineErrors } from './pipeline-errors.js';
import type { Value } from './values.js';

const SERIES: Record<string, number[]> = {
  R5: [10, 16, 25, 40, 63],
  R10: [100, 125, 160, 200, 250, 315, 400, 500, 630, 800],
  R20: [100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900],
  R40: [
    100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300, 315,
    355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950,
  ],
  R80: [
    103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290, 307, 325,
    345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975,
  ],
  '1-2-5': [10, 20, 50],
  E6: [10, 15, 22, 33, 47, 68],
  E12: [10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82],
  E24: [10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91],
  E48: [
    100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237, 249, 261,
    274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590, 619, 649, 681, 715,
    750, 787, 825, 866, 909, 953,
  ],
  E96: [
    100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154, 158, 162,
    165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255, 261, 267,
    274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412, 422, 432, 442,
    453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665, 681, 698, 715, 732,
    750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976,
  ],
  E192: [
    100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124, 126, 127,
    129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156, 158, 160, 162, 164,
    165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203, 205, 208, 210,
    213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258, 261, 264, 267, 271,
    274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328, 332, 336, 340, 344, 348,
    352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417, 422, 427, 432, 437, 442, 448,
    453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530, 536, 542, 549, 556, 562, 569, 576,
    583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673, 681, 690, 698, 706, 715, 723, 732, 741,
    750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856, 866, 876, 887, 898, 909, 920, 931, 942, 953,
    965, 976, 988,
  ],
};

export const GRANULARITIES = [...Object.keys(SERIES), 'POWERSOF2'];

export interface Rounder {
  roundUp(v: number | bigint): Value;
  roundDown(v: number | bigint): Value;
}

const bad = (why: string) => pipelineErrors.badStage('$bucketAuto', why);

/**
 * A groupBy value checked as MongoDB checks it when a granularity is given (a number, not NaN, not negative),
 * and also finite: MongoDB's series loop never ends for Infinity, here it is a 400.
 */
export function granularKey(v: Value): number | bigint {
  if (typeof v !== 'number' && typeof v !== 'bigint')
    throw bad('with a granularity, every groupBy value must be a number (a value is not)');
  if (Number.isNaN(v)) throw bad('with a granularity, a groupBy value cannot be NaN');
  if (v < 0) throw bad('with a granularity, groupBy values must not be negative');
  if (v === Number.POSITIVE_INFINITY) throw bad('with a granularity, a groupBy value cannot be Infinity');
  return v;
}

/** MongoDB's loops never end once the multiplier reaches 0 or Infinity (subnormal or huge keys): a 400 here. */
function scaled(m: number): number {
  if (m === 0 || m === Number.POSITIVE_INFINITY)
    throw bad('a groupBy value is too small or too large for the granularity series');
  return m;
}

function seriesRounder(series: number[]): Rounder {
  const first = series[0]!;
  const last = series.at(-1)!;
  return {
    roundUp(value) {
      const n = Number(value);
      if (n === 0) return value;
      let m = 1;
      while (n >= last * m) m = scaled(m * 10);
      while (n < first * m) {
        const previousMin = first * m;
        m = scaled(m / 10);
        if (n >= last * m) return previousMin;
      }
      // The first series value strictly above n (upper bound).
      for (const s of series) if (n < s * m) return s * m;
      return last * m; // not reached: n < last * m after scaling
    },
    roundDown(value) {
      const n = Number(value);
      if (n === 0) return value;
      let m = 1;
      while (n <= first * m) m = scaled(m / 10);
      while (n > last * m) {
        const previousMax = last * m;
        m = scaled(m * 10);
        if (n <= first * m) return previousMax;
      }
      // The series value just below the first one at or above n (lower bound, one back).
      let i = 0;
      while (i < series.length && series[i]! * m < n) i++;
      return series[i - 1]! * m;
    },
  };
}

/** 63 - (leading zeros of a positive int64): the index of its highest set bit. */
const highBit = (v: bigint) => v.toString(2).length - 1;

const powersOf2: Rounder = {
  roundUp(value) {
    if (Number(value) === 0) return value;
    const exp = isDouble(value)
      ? Math.trunc(Math.floor(Math.log2(value as number)) + 1)
      : highBit(BigInt(value)) + 1;
    return pow('$bucketAuto', 2, exp);
  },
  roundDown(value) {
    if (Number(value) === 0) return value;
    let exp: number;
    if (isDouble(value)) exp = Math.trunc(Math.ceil(Math.log2(value as number)) - 1);
    else {
      const v = BigInt(value);
      const high = highBit(v);
      exp = (v & (v - 1n)) === 0n ? high - 1 : high; // a power of two rounds down to the one below
    }
    return pow('$bucketAuto', 2, exp);
  },
};

/** MongoDB keeps ints and longs on the integer path; a double is any number that is not an int32. */
function isDouble(v: number | bigint): boolean {
  return typeof v === 'number' && !(Number.isInteger(v) && v >= -(2 ** 31) && v <= 2 ** 31 - 1);
}

/** The rounder of a granularity name, or a 400 naming the accepted ones. */
export function parseGranularity(name: Value): Rounder {
  if (name === 'POWERSOF2') return powersOf2;
  if (typeof name === 'string' && Object.hasOwn(SERIES, name)) return seriesRounder(SERIES[name]!);
  throw bad(`granularity must be one of ${GRANULARITIES.join(', ')}`);
}
