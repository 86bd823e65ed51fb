// Applies one feed answer to a cluster's replica in one transaction with its cursor: signing keys, accounts,
// games rows, then each game's child rows (the game's rows of each table deleted, the sent ones inserted), then
// the removals. Marked as the replica's transaction, so migration 0012's triggers skip it; 0009's still notify
// the auth cache.
import type pg from 'pg';
import { asMeta, type MetaContent, replaceMeta, type Stage } from '../admin/meta-collections.js';
import type { ChangedGames } from '../game-changes.js';
import { withTransaction } from '../store/db.js';
import {
  deleteReplicaRows,
  lockReplica,
  type MetaMarks,
  markReplicaTransaction,
  REPLICA_CHILD_TABLES,
  type ReplicaChildTable,
  readReplicaCursor,
  replaceGameChildRows,
  selectLiveMeta,
  selectMetaMarks,
  selectReplicaGamesInRangeNotIn,
  selectReplicaKeysNotIn,
  selectRestoredPreviewMeta,
  upsertReplicaRows,
  writeReplicaCursor,
} from '../store/replica.js';
import type { FeedAnswer } from './feed.js';

const keyOf = (row: string, column: string) => (JSON.parse(row) as Record<string, string>)[column] as string;

/** The child rows of the answer's games (unknown table names are not ours: left out). */
function childRows(answer: FeedAnswer): Map<ReplicaChildTable, string[]> {
  const rows = new Map<ReplicaChildTable, string[]>();
  for (const game of answer.games) {
    for (const table of REPLICA_CHILD_TABLES) {
      const sent = game.children?.[table];
      if (sent?.length) rows.set(table, [...(rows.get(table) ?? []), ...sent]);
    }
  }
  return rows;
}

export interface Applied {
  /** False when another process of the cluster moved the stored cursor meanwhile: the answer was dropped (it may
   * be older than the replica), and the caller asks again from the stored cursor. */
  applied: boolean;
  /** The games the answer names, for this process's caches to forget (applied here or by the other process). */
  games: ChangedGames;
  /** Meta collections replaced in the transaction: their indexes are synchronised after the commit (DDL). */
  meta: MetaWrite[];
}

export interface MetaWrite {
  apiKey: string;
  stage: Stage;
  meta: MetaContent;
}

/**
 * Writes the meta collections the answer changed, in the applier's transaction: Live when the game's Live pointer
 * moved (its publish count changed: the replicated Live snapshot carries the meta collections), Preview when a
 * revert or copy on the control side recorded a new restore (migration 0013).
 */
async function applyMeta(
  client: pg.PoolClient,
  before: Map<string, MetaMarks>,
  after: Map<string, MetaMarks>,
): Promise<MetaWrite[]> {
  const writes: MetaWrite[] = [];
  const at = Date.now();
  for (const [apiKey, now] of after) {
    const was = before.get(apiKey);
    if (now.liveSeq !== (was?.liveSeq ?? null)) {
      writes.push({ apiKey, stage: 'live', meta: asMeta(await selectLiveMeta(client, apiKey)) });
    }
    if (now.restoreSeq !== null && now.restoreSeq !== (was?.restoreSeq ?? null)) {
      writes.push({
        apiKey,
        stage: 'preview',
        meta: asMeta(await selectRestoredPreviewMeta(client, apiKey)),
      });
    }
  }
  for (const w of writes) await replaceMeta(client, w.apiKey, w.stage, w.meta, at);
  return writes;
}

/** Games, accounts and keys the control side no longer has: tombstones, and what a full answer leaves out. */
async function removals(client: pg.PoolClient, answer: FeedAnswer, present: string[]) {
  const games = answer.games.filter((g) => g.row === null).map((g) => g.apiKey);
  if (answer.full) {
    const { from, to } = answer.full;
    games.push(...(await selectReplicaGamesInRangeNotIn(client, from, to, present)));
  }
  const keys = [...answer.deleted.keys];
  const accounts = [...answer.deleted.accounts];
  if (answer.complete) {
    const sentKeys = answer.keys.map((r) => keyOf(r, 'kid'));
    const sentAccounts = answer.accounts.map((r) => keyOf(r, 'username'));
    keys.push(...(await selectReplicaKeysNotIn(client, 'signing_keys', sentKeys)));
    accounts.push(...(await selectReplicaKeysNotIn(client, 'accounts', sentAccounts)));
  }
  return { games, keys, accounts };
}

/** Applies the answer to a request made `after` the given cursor. */
export async function applyFeedAnswer(pool: pg.Pool, answer: FeedAnswer, after: string): Promise<Applied> {
  const named: ChangedGames = answer.full ? '*' : answer.games.map((g) => g.apiKey);
  return withTransaction(pool, async (client) => {
    await lockReplica(client);
    if (((await readReplicaCursor(client)) ?? '0') !== after)
      return { applied: false, games: named, meta: [] };
    await markReplicaTransaction(client);
    await upsertReplicaRows(client, 'signing_keys', answer.keys);
    await upsertReplicaRows(client, 'accounts', answer.accounts);
    const present = answer.games.filter((g) => g.row !== null);
    const presentKeys = present.map((g) => g.apiKey);
    await upsertReplicaRows(
      client,
      'games',
      present.map((g) => g.row as string),
    );
    const marks = await selectMetaMarks(client, presentKeys);
    await replaceGameChildRows(client, presentKeys, childRows(answer));
    const meta = await applyMeta(client, marks, await selectMetaMarks(client, presentKeys));
    // Games first: an account is kept while a game here still names it as its owner.
    const gone = await removals(client, answer, presentKeys);
    await deleteReplicaRows(client, 'games', gone.games);
    await deleteReplicaRows(client, 'signing_keys', gone.keys);
    await deleteReplicaRows(client, 'accounts', gone.accounts);
    await writeReplicaCursor(client, answer.cursor);
    return { applied: true, games: answer.full ? '*' : [...presentKeys, ...gone.games], meta };
  });
}
