// Running-total records: one document per player (and group values) in <shortCode>-runningTotal, updated in place.
//
// A record is a document of the collection itself, so the nosql API reads, edits and empties the same data the
// runtime updates. Its _id is the player id, or "<playerId>|<JSON array of the group values>" when grouped, so
// the record of a player and group is found by key and two writers meet on one row lock.
import type pg from 'pg';
import { type Doc, idKey, setField, type Value } from '../query/values.js';
import { collect } from './collectors.js';
import { type GameStage, insertDoc, readDoc, writeDoc } from './doc-store.js';
import type { AttributeValues } from './event-attributes.js';
import type { RunningTotalPlan } from './runtime-config.js';

function recordId(rt: RunningTotalPlan, playerId: string, values: AttributeValues): string {
  if (rt.groupBy.length === 0) return playerId;
  return `${playerId}|${JSON.stringify(rt.groupBy.map((a) => values.get(a) ?? null))}`;
}

function recordDoc(
  rt: RunningTotalPlan,
  base: Doc | undefined,
  ids: { id: string; playerId: string },
  values: AttributeValues,
  next: unknown[],
  nowMs: number,
): Doc {
  // Fields a user added through the nosql API stay; the runtime's own fields are rewritten.
  const doc: Doc = { ...(base ?? {}), _id: ids.id, userId: ids.playerId };
  for (const a of rt.groupBy) setField(doc, a, (values.get(a) ?? null) as Value);
  rt.collectors.forEach((c, i) => {
    if (next[i] !== undefined) setField(doc, c.attribute, next[i] as Value);
  });
  doc.when = new Date(nowMs);
  return doc;
}

/** Applies the event to the player's record, creating it on the first event a collector takes. */
export async function updateRunningTotal(
  client: pg.PoolClient,
  gs: GameStage,
  rt: RunningTotalPlan,
  playerId: string,
  values: AttributeValues,
  nowMs: number,
): Promise<void> {
  const id = recordId(rt, playerId, values);
  const key = idKey(id);
  // Two tries: a concurrent first event may create the record between the read and the insert.
  for (let attempt = 0; attempt < 2; attempt++) {
    const old = await readDoc(client, gs, rt.collection, key, true);
    const prev = old
      ? rt.collectors.map((c) => (Object.hasOwn(old, c.attribute) ? old[c.attribute] : undefined))
      : undefined;
    const result = collect(prev, rt.collectors, values);
    if (!result.changed) return;
    const doc = recordDoc(rt, old, { id, playerId }, values, result.next, nowMs);
    if (old) return writeDoc(client, gs, rt.collection, doc);
    if (await insertDoc(client, gs, rt.collection, doc)) return;
  }
  throw new Error(`running total ${rt.shortCode}: record ${id} neither readable nor insertable`);
}
