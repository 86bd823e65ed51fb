// Posting an event to a leaderboard: the player's entry on each board it feeds, its mirror document, its bucket.
import type pg from 'pg';
import { type Doc, fromStored, ObjectId, setField, toStored, type Value } from '../query/values.js';
import type { BucketChange } from '../store/rank-buckets.js';
import { type EntryRow, lockBoardEntry } from '../store/runtime-boards.js';
import { writeEntryWithMirror } from '../store/runtime-documents.js';
import { boardKey, boardShortCode, openBoard, type Partition, partitionOf, WHOLE } from './boards.js';
import { collect } from './collectors.js';
import type { GameStage } from './doc-store.js';
import type { AttributeValues } from './event-attributes.js';
import { entryOrder, valuesKey } from './ordering.js';
import type { LeaderboardPlan } from './runtime-config.js';

export interface Poster {
  playerId: string;
  userName: string | null;
  event: string;
  values: AttributeValues;
  nowMs: number;
}

/** The entry's mirror in <shortCode>-leaderboard; without rank, which moves with every other entry's change. */
function mirrorDoc(
  lb: LeaderboardPlan,
  partition: Partition,
  poster: Poster,
  entry: { docId: string; values: unknown[]; whenMs: number },
): Doc {
  const doc: Doc = {
    _id: ObjectId.createFromHexString(entry.docId),
    leaderboardShortCode: boardShortCode(lb, partition),
    userId: poster.playerId,
    userName: poster.userName,
  };
  for (const [attribute, v] of Object.entries(partition.values)) setField(doc, attribute, v as Value);
  lb.fields.forEach((f, i) => {
    // Two fields with one collector code: the first one names the value.
    if (entry.values[i] !== undefined && !Object.hasOwn(doc, f.attribute))
      setField(doc, f.attribute, entry.values[i] as Value);
  });
  doc.when = new Date(entry.whenMs);
  return doc;
}

/** Stored entry values back in memory; null in the JSON array means "no value". */
function valuesOf(row: EntryRow): unknown[] {
  return row.vals.map((v) => (v === null ? undefined : fromStored(v)));
}

/** Writes the entry; false when a concurrent first post made it first. */
function writeEntry(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  partition: Partition,
  poster: Poster,
  entry: { insert: boolean; boardId: string; ord: Buffer; values: unknown[]; whenMs: number; docId: string },
): Promise<boolean> {
  const vals = JSON.stringify(entry.values.map((v) => (v === undefined ? null : toStored(v as Value))));
  const doc = mirrorDoc(lb, partition, poster, entry);
  const stored = { ...entry, vals, playerId: poster.playerId, userName: poster.userName };
  return writeEntryWithMirror(client, gs, stored, { collection: lb.collection, doc });
}

/** What a post did: entries written (created or changed), and the rank bucket changes to apply. */
export interface PostResult {
  written: number;
  changes: BucketChange[];
}

async function postToBoard(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  partition: Partition,
  poster: Poster,
): Promise<PostResult> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const key = boardKey(lb, partition.code, poster.nowMs);
    const found = await lockBoardEntry(client, gs, key, poster.playerId);
    const boardId = found?.boardId ?? (await openBoard(client, gs, lb, partition, poster.nowMs));
    const row = found?.entry;
    const result = collect(
      row ? valuesOf(row) : undefined,
      lb.fields,
      poster.values,
      (i) => lb.fields[i]?.event === poster.event,
    );
    if (!result.changed) return { written: 0, changes: [] };
    // `when` is when the ranking values were reached: a tie goes to whoever got there first.
    const whenMs = row && !result.rankingChanged ? Number(row.when_ms) : poster.nowMs;
    const ord = entryOrder(valuesKey(lb.fields, result.next), whenMs, poster.playerId);
    const docId = row?.doc_id ?? new ObjectId().toHexString();
    const entry = { insert: !row, boardId, ord, values: result.next, whenMs, docId };
    if (!(await writeEntry(client, gs, lb, partition, poster, entry))) continue;
    if (!row) return { written: 1, changes: [{ boardId, key: ord, delta: 1 }] };
    if (row.ord.equals(ord)) return { written: 1, changes: [] };
    const changes: BucketChange[] = [
      { boardId, key: row.ord, delta: -1 },
      { boardId, key: ord, delta: 1 },
    ];
    return { written: 1, changes };
  }
  throw new Error(`leaderboard ${boardShortCode(lb, partition)}: entry neither readable nor insertable`);
}

/** Posts to the whole leaderboard and to the event's partition of it. */
export async function postToLeaderboard(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  poster: Poster,
): Promise<PostResult> {
  const partition = partitionOf(lb, poster.values);
  const whole = await postToBoard(client, gs, lb, WHOLE, poster);
  if (!partition) return whole;
  const part = await postToBoard(client, gs, lb, partition, poster);
  return { written: whole.written + part.written, changes: [...whole.changes, ...part.changes] };
}
