// The ranking order of leaderboard entries as one byte string, so one btree index orders and counts them.
//
// ord = for each ranking field: 01 + the value's order-preserving key (bytes inverted when the field sorts DESC),
// or 02 when the entry has no value (after every value, in either direction); then the time the values were
// reached (earlier first: who got there first ranks higher); then the player id, so no two entries tie.
// Value keys are prefix-free (fixed-size numbers, terminated strings), so concatenation compares field by field.
import { encodeKey } from '../query/key-encoding.js';
import type { Value } from '../query/values.js';
import type { LeaderboardField } from './runtime-config.js';

const PRESENT = Buffer.from([0x01]);
const ABSENT = Buffer.from([0x02]);

function inverted(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  for (let i = 0; i < b.length; i++) out[i] = ~b[i]! & 0xff;
  return out;
}

function timeKey(ms: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(Math.trunc(ms))) ^ (1n << 63n));
  return out;
}

/** The entry's ranking values alone (the part that decides whether `when` moves). */
export function valuesKey(fields: readonly LeaderboardField[], values: readonly unknown[]): Buffer {
  const parts: Buffer[] = [];
  fields.forEach((f, i) => {
    if (!f.ranks) return;
    const v = values[i];
    if (v === undefined || v === null) {
      parts.push(ABSENT);
      return;
    }
    const key = encodeKey(v as Value);
    parts.push(PRESENT, f.sort === 'DESC' ? inverted(key) : key);
  });
  return Buffer.concat(parts);
}

export function entryOrder(valuesPart: Buffer, whenMs: number, playerId: string): Buffer {
  return Buffer.concat([valuesPart, timeKey(whenMs), Buffer.from(playerId, 'utf8')]);
}
