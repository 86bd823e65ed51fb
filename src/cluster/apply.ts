// Applies one feed answer to a cluster's replica in one transaction with its cursor: signing keys, accounts,
// games rows, then each game's child rows (the game's rows of each table deleted, the sent ones inserted), then
// the removals. Marked as the replica's transaction, so migration 0012's triggers skip it; 0009's still notify
// the auth cache.
import type pg from 'pg';
import type { ChangedGames } from '../game-changes.js';
import { withTransaction } from '../store/db.js';
import {
  deleteReplicaRows,
  markReplicaTransaction,
  REPLICA_CHILD_TABLES,
  type ReplicaChildTable,
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

/** Applies the answer; returns the games whose state changed here (for the caches to forget). */
export async function applyFeedAnswer(pool: pg.Pool, answer: FeedAnswer): Promise<ChangedGames> {
  return withTransaction(pool, async (client) => {
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
    return answer.full ? '*' : [...present.map((g) => g.apiKey), ...gone];
  });
}
