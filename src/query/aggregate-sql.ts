// Which stage after the pushed-down $match can also run as SQL with exactly the evaluator's result: a $count,
// or a $group keyed by a plain field path (or a constant) whose accumulators are $sum of a constant 1, or
// $sum / $avg of a plain field path. The store computes per group exact totals and the texts of the key
// values (src/store/document-groups.ts); `finishGroup` turns them into the documents GroupAccumulator would
// build, or answers undefined when a group's inputs are outside what SQL reproduces exactly (a number that is
// not an int32, a long, equal keys written differently): the caller then runs the evaluator as before.
import type { GroupSpec } from './aggregate-group.js';
import type { Expr } from './expr/index.js';
import { encodeKey } from './key-encoding.js';
import { fromStored } from './stored-form.js';
import { type Doc, setField, type Value } from './values.js';

export type SqlField =
  | { name: string; kind: 'count' }
  | { name: string; kind: 'sum' | 'avg'; parts: string[] };

export type SqlAggregate =
  | { kind: 'count'; field: string }
  | { kind: 'group'; id: { parts: string[] } | { value: Value }; fields: SqlField[] };

const plainPath = (e: Expr): string[] | undefined =>
  e.kind === 'path' && e.variable === 'CURRENT' && e.path.length > 0 ? e.path : undefined;

/** The SQL form of a $group, or undefined when it has an accumulator or key SQL does not reproduce. */
export function groupAsSql(spec: GroupSpec): SqlAggregate | undefined {
  const idPath = plainPath(spec.id);
  let id: { parts: string[] } | { value: Value };
  if (idPath) id = { parts: idPath };
  else if (spec.id.kind === 'const' && (spec.id.value === null || typeof spec.id.value === 'string'))
    id = { value: spec.id.value };
  else return undefined;
  const fields: SqlField[] = [];
  for (const f of spec.fields) {
    const parts = plainPath(f.expr);
    if (f.op === '$sum' && f.expr.kind === 'const' && f.expr.value === 1)
      fields.push({ name: f.name, kind: 'count' });
    else if ((f.op === '$sum' || f.op === '$avg') && parts)
      fields.push({ name: f.name, kind: f.op === '$sum' ? 'sum' : 'avg', parts });
    else return undefined;
  }
  return { kind: 'group', id, fields };
}

/**
 * One group's row: the text of its key (rows are grouped by it, which is never coarser than MongoDB's equality:
 * a long 5 and a double 5 are two groups, and finishGroup gives up when keys repeat; a string and a number of
 * the same text are told apart by `strings`), the count, and per numeric field its totals.
 */
export interface GroupRow {
  /** The key's text as `#>>` gives it: a string itself, JSON text for the other types, null for null/missing. */
  key: string | null;
  n: string;
  /** How many of the group's keys are strings, counted only when the text starts like non-string JSON. */
  strings: string;
  /** Per field of kind sum/avg, in order: exact sum of the numbers (numeric text), their count, all int32. */
  totals: Array<{ sum: string | null; count: string; int32: boolean; other: boolean }>;
}

const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);
/** Past this many numbers a double-double partial sum of int32 values might not be exact. */
const EXACT_COUNT = 2 ** 22;

/** Characters a non-string JSON text starts with (document-groups.ts JSON_STARTS). */
const JSON_START = /^[-0-9[fnt{]/;

/** A group's key from its text; undefined when its documents mix a string and a non-string of that text. */
function keyOf(row: GroupRow): Value | undefined {
  if (row.key === null) return null;
  if (!JSON_START.test(row.key)) return row.key;
  const strings = Number(row.strings);
  if (strings === Number(row.n)) return row.key;
  return strings === 0 ? fromStored(JSON.parse(row.key)) : undefined;
}

/** The documents GroupAccumulator would give for these rows, or undefined when SQL cannot be exact. */
export function finishGroup(
  agg: Extract<SqlAggregate, { kind: 'group' }>,
  rows: GroupRow[],
): Doc[] | undefined {
  const out: Doc[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    if (Number(row.n) === 0) continue; // a constant key over no document: no group
    const id = 'value' in agg.id ? agg.id.value : keyOf(row);
    if (id === undefined) return undefined;
    const key = encodeKey(id).toString('hex');
    if (seen.has(key)) return undefined;
    seen.add(key);
    const doc: Doc = { _id: id };
    let t = 0;
    for (const f of agg.fields) {
      if (f.kind === 'count') {
        const n = Number(row.n);
        setField(doc, f.name, n > INT_MAX ? BigInt(n) : n);
        continue;
      }
      const total = row.totals[t++]!;
      const count = Number(total.count);
      if (total.other || !total.int32 || count > EXACT_COUNT) return undefined;
      const sum = BigInt(total.sum ?? '0');
      if (f.kind === 'sum') setField(doc, f.name, sum >= INT_MIN && sum <= INT_MAX ? Number(sum) : sum);
      else setField(doc, f.name, count === 0 ? null : Number(sum) / count);
    }
    out.push(doc);
  }
  return out;
}

/** $count's document: none for no match (MongoDB), an int, or a long past int32. */
export function finishCount(field: string, n: number): Doc[] {
  if (n === 0) return [];
  const out: Doc = {};
  setField(out, field, n > INT_MAX ? BigInt(n) : n);
  return [out];
}
