// Applies one feed answer to a cluster's replica in one transaction with its cursor: signing keys, accounts,
// games rows, then each game's child rows (the game's rows of each table deleted, the sent ones inserted), then
// the removals. Marked as the replica's transaction, so migration 0012's triggers skip it; 0009's still notify
// the auth cache.
import type pg from 'pg';
import type { ChangedGames } from '../game-changes.js';
import { withTransaction } from '../store/db.js';
import {
  deleteReplicaRows,
  lockReplica,
  markReplicaTransaction,
  REPLICA_CHILD_TABLES,
  type ReplicaChildTable,
  readReplicaCursor,
  replaceGameChildRows,
  selectReplicaGamesInRangeNotIn,
  selectReplicaKeysNotIn,
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
}

/** Applies the answer to a request made `after` the given cursor. */
export async function applyFeedAnswer(pool: pg.Pool, answer: FeedAnswer, after: string): Promise<Applied> {
  const named: ChangedGames = answer.full ? '*' : answer.games.map((g) => g.apiKey);
  return withTransaction(pool, async (client) => {
    await lockReplica(client);
    if (((await readReplicaCursor(client)) ?? '0') !== after) return { applied: false, games: named };
    await markReplicaTransaction(client);
    await upsertReplicaRows(client, 'signing_keys', answer.keys);
    await upsertReplicaRows(client, 'accounts', answer.accounts);
    const present = answer.games.filter((g) => g.row !== null);
    await upsertReplicaRows(
      client,
      'games',
      present.map((g) => g.row as string),
    );
    await replaceGameChildRows(
      client,
      present.map((g) => g.apiKey),
      childRows(answer),
    );
    const gone = answer.games.filter((g) => g.row === null).map((g) => g.apiKey);
    if (answer.full) {
      const { from, to } = answer.full;
      const keep = present.map((g) => g.apiKey);
      gone.push(...(await selectReplicaGamesInRangeNotIn(client, from, to, keep)));
    }
    await deleteReplicaRows(client, 'games', gone);
    const deletedKeys = [...answer.deleted.keys];
    const deletedAccounts = [...answer.deleted.accounts];
    if (answer.complete) {
      deletedKeys.push(
        ...(await selectReplicaKeysNotIn(
          client,
          'signing_keys',
          answer.keys.map((r) => keyOf(r, 'kid')),
        )),
      );
      deletedAccounts.push(
        ...(await selectReplicaKeysNotIn(
          client,
          'accounts',
          answer.accounts.map((r) => keyOf(r, 'username')),
        )),
      );
    }
    await deleteReplicaRows(client, 'signing_keys', deletedKeys);
    await deleteReplicaRows(client, 'accounts', deletedAccounts);
    await writeReplicaCursor(client, answer.cursor);
    return { applied: true, games: answer.full ? '*' : [...present.map((g) => g.apiKey), ...gone] };
  });
}
