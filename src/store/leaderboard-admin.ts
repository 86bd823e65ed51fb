// Leaderboard administration (src/players): a leaderboard's current boards (its partitions), deleting one entry,
// and deleting boards with their entries, rank buckets and mirror documents (a reset now).
import type pg from 'pg';
import { deleteMirrors } from './player-admin.js';
import type { Db, GameScope } from './scope.js';

export interface BoardSummary {
  boardId: string;
  partition: string;
  partValues: Record<string, unknown>;
  entries: number;
}

/** The boards of the leaderboard for this period and definition, by partition ('' first), at most `limit`+1. */
export async function currentBoards(
  db: Db,
  gs: GameScope,
  board: { leaderboard: string; periodStart: number; spec: string },
  limit: number,
): Promise<BoardSummary[]> {
  const { rows } = await db.query<{
    board_id: string;
    partition: string;
    part_values: Record<string, unknown>;
    n: string;
  }>(
    `SELECT b.board_id, b.partition, b.part_values,
       (SELECT coalesce(sum(n), 0) FROM runtime_rank_buckets r WHERE r.board_id = b.board_id) AS n
     FROM runtime_boards b
     WHERE b.game_id = $1 AND b.stage = $2 AND b.leaderboard = $3 AND b.period_start = $4 AND b.spec = $5
     ORDER BY b.partition LIMIT $6`,
    [gs.game, gs.stage, board.leaderboard, board.periodStart, board.spec, limit + 1],
  );
  return rows.map((r) => ({
    boardId: r.board_id,
    partition: r.partition,
    partValues: r.part_values,
    entries: Number(r.n),
  }));
}

/** Deletes the (locked) entry of the player on the board; answers its ord and mirror id, or undefined. */
export async function deleteEntryRow(
  client: pg.PoolClient,
  boardId: string,
  playerId: string,
): Promise<{ ord: Buffer; docId: string } | undefined> {
  const { rows } = await client.query<{ ord: Buffer; doc_id: string }>(
    'DELETE FROM runtime_entries WHERE board_id = $1 AND player_id = $2 RETURNING ord, doc_id',
    [boardId, playerId],
  );
  const row = rows[0];
  return row ? { ord: row.ord, docId: row.doc_id } : undefined;
}

/**
 * Deletes every board of the leaderboard (or of one partition of it), whatever its period or definition: the
 * mirror documents of their entries first, then the boards (entries and buckets go with them). Answers the
 * boards and entries deleted.
 */
export async function deleteBoards(
  client: pg.PoolClient,
  gs: GameScope,
  target: { leaderboard: string; partition: string | undefined; collection: string },
): Promise<{ boards: number; entries: number }> {
  const params = [gs.game, gs.stage, target.leaderboard, target.partition ?? null];
  const boards = `SELECT board_id FROM runtime_boards WHERE game_id = $1 AND stage = $2 AND leaderboard = $3
    AND ($4::text IS NULL OR partition = $4) FOR UPDATE`;
  const { rows } = await client.query<{ doc_id: string }>(
    `SELECT e.doc_id FROM runtime_entries e WHERE e.board_id IN (${boards})`,
    params,
  );
  await deleteMirrors(
    client,
    gs,
    rows.map((r) => ({ collection: target.collection, docId: r.doc_id })),
  );
  const gone = await client.query(
    `DELETE FROM runtime_boards WHERE game_id = $1 AND stage = $2 AND leaderboard = $3
     AND ($4::text IS NULL OR partition = $4)`,
    params,
  );
  return { boards: gone.rowCount ?? 0, entries: rows.length };
}
