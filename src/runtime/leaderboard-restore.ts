// Leaderboard entries made again from imported mirror documents (<shortCode>-leaderboard), and their rank buckets.
//
// A mirror holds what its entry ranks by: the player, the field values (named by attribute), the partition values
// and `when`. The entry goes on the board of the stage's current ranking definition for the period `when` falls
// in, as the writer that made it chose; its rank buckets are counted afresh once the import has written them all.
import type pg from 'pg';
import { type Doc, ObjectId, toStored, type Value } from '../query/values.js';
import { SPLIT_AT } from '../store/rank-buckets.js';
import {
  findBoard,
  insertBoard,
  insertEntries as insertEntryRows,
  rebuildRankBuckets as rebuildBuckets,
} from '../store/runtime-boards.js';
import { boardKey, boardShortCode, type Partition, partitionOf, WHOLE } from './boards.js';
import type { GameStage } from './doc-store.js';
import { entryOrder, valuesKey } from './ordering.js';
import { periodStart } from './periods.js';
import type { LeaderboardPlan } from './runtime-config.js';

export interface MirrorRecord {
  /** The import line, for errors. */
  line: number;
  doc: Doc;
}

export interface RestoreErrors {
  bad(line: number, why: string): Error;
  conflict(line: number, why: string): Error;
}

interface Entry {
  line: number;
  partition: Partition;
  playerId: string;
  userName: string | null;
  ord: Buffer;
  vals: string;
  whenMs: number;
  docId: string;
}

/** The partition the mirror's leaderboardShortCode names, checked against its own partition values. */
function partitionOfMirror(lb: LeaderboardPlan, doc: Doc, fail: (why: string) => Error): Partition {
  const named = doc.leaderboardShortCode;
  if (named === lb.shortCode) return WHOLE;
  const values = new Map(lb.partitions.map((a) => [a, doc[a]] as [string, unknown]));
  let partition: Partition | undefined;
  try {
    partition = partitionOf(lb, values);
  } catch {
    // A value JSON cannot print (a long): no event could have posted it.
  }
  if (partition && named === boardShortCode(lb, partition)) return partition;
  throw fail(`leaderboardShortCode must be ${lb.shortCode} or name the partition of its values`);
}

function entryOf(lb: LeaderboardPlan, record: MirrorRecord, errors: RestoreErrors): Entry {
  const { doc, line } = record;
  const fail = (why: string) => errors.bad(line, `not an entry of leaderboard ${lb.shortCode}: ${why}`);
  if (!(doc._id instanceof ObjectId)) throw fail('its _id must be an ObjectId');
  if (typeof doc.userId !== 'string' || doc.userId === '') throw fail('userId must be a player id');
  if (!(doc.when instanceof Date)) throw fail('when must be a date');
  const userName = doc.userName ?? null;
  if (userName !== null && typeof userName !== 'string') throw fail('userName must be a string or null');
  const partition = partitionOfMirror(lb, doc, fail);
  const values = lb.fields.map((f) => (Object.hasOwn(doc, f.attribute) ? doc[f.attribute] : undefined));
  const whenMs = doc.when.getTime();
  return {
    line,
    partition,
    playerId: doc.userId,
    userName,
    ord: entryOrder(valuesKey(lb.fields, values), whenMs, doc.userId),
    vals: JSON.stringify(values.map((v) => (v === undefined ? null : toStored(v as Value)))),
    whenMs,
    docId: doc._id.toHexString(),
  };
}

/** The board of that partition and period under the current definition, made (with no entry) when missing. */
async function ensureBoard(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  partition: Partition,
  whenMs: number,
): Promise<string> {
  const key = boardKey(lb, partition.code, whenMs);
  const made = await insertBoard(client, gs, key, { configSeq: lb.configSeq, partValues: partition.values });
  if (made) return made;
  const found = await findBoard(client, gs, key);
  if (!found) throw new Error(`board ${boardShortCode(lb, partition)} neither made nor found`);
  return found.boardId;
}

async function insertEntries(
  client: pg.PoolClient,
  lb: LeaderboardPlan,
  boardId: string,
  entries: Entry[],
  errors: RestoreErrors,
): Promise<void> {
  const players = await insertEntryRows(client, boardId, {
    playerIds: entries.map((e) => e.playerId),
    ords: entries.map((e) => e.ord),
    vals: entries.map((e) => e.vals),
    whenMs: entries.map((e) => e.whenMs),
    userNames: entries.map((e) => e.userName),
    docIds: entries.map((e) => e.docId),
  });
  if (players.length === entries.length) return;
  const written = new Set(players);
  const first = entries.find((e) => !written.has(e.playerId));
  if (first) {
    const board = boardShortCode(lb, first.partition);
    throw errors.conflict(
      first.line,
      `player ${first.playerId} already has an entry on leaderboard ${board}`,
    );
  }
}

/** Makes the entries the mirror documents (already written) show; a player met twice on one board fails. */
export async function restoreEntries(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  records: MirrorRecord[],
  errors: RestoreErrors,
): Promise<void> {
  const byBoard = new Map<string, Entry[]>();
  for (const record of records) {
    const entry = entryOf(lb, record, errors);
    const key = `${entry.partition.code}\u0000${periodStart(lb.reset, entry.whenMs)}`;
    const list = byBoard.get(key) ?? [];
    list.push(entry);
    byBoard.set(key, list);
  }
  for (const entries of byBoard.values()) {
    const first = entries[0] as Entry;
    const boardId = await ensureBoard(client, gs, lb, first.partition, first.whenMs);
    // Two entries of one player in one statement would both pass ON CONFLICT: the second goes alone.
    const seen = new Set<string>();
    const once: Entry[] = [];
    let twice: Entry | undefined;
    for (const e of entries) {
      if (seen.has(e.playerId)) twice ??= e;
      else once.push(e);
      seen.add(e.playerId);
    }
    await insertEntries(client, lb, boardId, once, errors);
    if (twice) await insertEntries(client, lb, boardId, [twice], errors);
  }
}

/**
 * Counts the rank buckets of every board of these leaderboards afresh: one bucket from the empty key, then one
 * from every SPLIT_AT / 2-th entry (the size a split leaves), each counting the entries up to the next.
 */
export async function rebuildRankBuckets(
  client: pg.PoolClient,
  gs: GameStage,
  leaderboards: string[],
): Promise<void> {
  await rebuildBuckets(client, gs, leaderboards, SPLIT_AT / 2);
}
