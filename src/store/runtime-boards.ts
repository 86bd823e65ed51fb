// The runtime_boards table and the entry writes of imports: a leaderboard's board per partition, period and
// ranking definition, the entry lock of a post, restored entries, and rank buckets counted afresh.
import type pg from 'pg';
import { createFirstBucket } from './rank-buckets.js';
import type { Db, GameScope } from './scope.js';

/** Which board: the leaderboard, its partition ('' for the whole), the period's start, the definition's spec. */
export interface BoardKey {
  leaderboard: string;
  partition: string;
  periodStart: number;
  spec: string;
}

/** $1 game, $2 stage, $3 leaderboard, $4 partition, $5 period start, $6 spec. */
const BOARD_WHERE = `game_id = $1 AND stage = $2 AND leaderboard = $3 AND partition = $4
  AND period_start = $5 AND spec = $6`;

const keyParams = (gs: GameScope, key: BoardKey): unknown[] => [
  gs.game,
  gs.stage,
  key.leaderboard,
  key.partition,
  key.periodStart,
  key.spec,
];

export async function findBoard(
  db: Db,
  gs: GameScope,
  key: BoardKey,
): Promise<{ boardId: string; partValues: Record<string, unknown> } | undefined> {
  const { rows } = await db.query<{ board_id: string; part_values: Record<string, unknown> }>({
    name: 'runtime-board-find',
    text: `SELECT board_id, part_values FROM runtime_boards WHERE ${BOARD_WHERE}`,
    values: keyParams(gs, key),
  });
  const row = rows[0];
  return row ? { boardId: row.board_id, partValues: row.part_values } : undefined;
}

/** Makes the board with its first rank bucket; undefined when it exists (another writer made it first). */
export async function insertBoard(
  client: pg.PoolClient,
  gs: GameScope,
  key: BoardKey,
  made: { configSeq: number; partValues: Record<string, unknown> },
): Promise<string | undefined> {
  const { rows } = await client.query<{ board_id: string }>(
    `INSERT INTO runtime_boards (game_id, stage, leaderboard, partition, period_start, spec, config_seq, part_values)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) ON CONFLICT DO NOTHING RETURNING board_id`,
    [...keyParams(gs, key), made.configSeq, JSON.stringify(made.partValues)],
  );
  const id = rows[0]?.board_id;
  if (id) await createFirstBucket(client, id);
  return id;
}

export interface EntryRow {
  ord: Buffer;
  vals: unknown[];
  when_ms: string;
  doc_id: string;
}

/** The board (undefined: not made yet) and the player's entry on it, locked, in one statement. */
export async function lockBoardEntry(
  client: pg.PoolClient,
  gs: GameScope,
  key: BoardKey,
  playerId: string,
): Promise<{ boardId: string; entry: EntryRow | undefined } | undefined> {
  const { rows } = await client.query<{ board_id: string } & { [K in keyof EntryRow]: EntryRow[K] | null }>({
    name: 'runtime-board-entry-lock',
    text: `SELECT b.board_id, e.ord, e.vals, e.when_ms, e.doc_id FROM runtime_boards b
     LEFT JOIN LATERAL (SELECT ord, vals, when_ms, doc_id FROM runtime_entries x
                        WHERE x.board_id = b.board_id AND x.player_id = $7 FOR UPDATE) e ON true
     WHERE ${BOARD_WHERE}`,
    values: [...keyParams(gs, key), playerId],
  });
  const row = rows[0];
  if (!row) return undefined;
  return { boardId: row.board_id, entry: row.ord === null ? undefined : (row as unknown as EntryRow) };
}

/** Entries as an import gives them, column by column; `vals` are stored JSON array texts. */
export interface EntryColumns {
  playerIds: string[];
  ords: Buffer[];
  vals: string[];
  whenMs: number[];
  userNames: Array<string | null>;
  docIds: string[];
}

/** Inserts entries of one board; a player with an entry already keeps it. Answers the players written. */
export async function insertEntries(
  client: pg.PoolClient,
  boardId: string,
  e: EntryColumns,
): Promise<string[]> {
  const { rows } = await client.query<{ player_id: string }>(
    `INSERT INTO runtime_entries (board_id, player_id, ord, vals, when_ms, user_name, doc_id)
     SELECT $1, u.player, u.ord, u.vals::jsonb, u.when_ms, u.user_name, u.doc_id
     FROM unnest($2::text[], $3::bytea[], $4::text[], $5::bigint[], $6::text[], $7::text[])
       AS u(player, ord, vals, when_ms, user_name, doc_id)
     ON CONFLICT (board_id, player_id) DO NOTHING RETURNING player_id`,
    [boardId, e.playerIds, e.ords, e.vals, e.whenMs, e.userNames, e.docIds],
  );
  return rows.map((r) => r.player_id);
}

/**
 * Counts the rank buckets of every board of these leaderboards afresh: one bucket from the empty key, then one
 * from every `step`-th entry, each counting the entries up to the next.
 */
export async function rebuildRankBuckets(
  client: pg.PoolClient,
  gs: GameScope,
  leaderboards: string[],
  step: number,
): Promise<void> {
  const boards =
    'SELECT board_id FROM runtime_boards WHERE game_id = $1 AND stage = $2 AND leaderboard = ANY($3::text[])';
  const params = [gs.game, gs.stage, leaderboards];
  await client.query(`DELETE FROM runtime_rank_buckets WHERE board_id IN (${boards})`, params);
  await client.query(
    `WITH b AS (${boards}),
     e AS (SELECT board_id, ord, row_number() OVER (PARTITION BY board_id ORDER BY ord) - 1 AS i
           FROM runtime_entries WHERE board_id IN (SELECT board_id FROM b)),
     c AS (SELECT board_id, count(*) AS total FROM runtime_entries
           WHERE board_id IN (SELECT board_id FROM b) GROUP BY board_id),
     starts AS (SELECT board_id, '\\x'::bytea AS lower, 0::bigint AS i FROM b
                UNION ALL SELECT board_id, ord, i FROM e WHERE i > 0 AND i % $4 = 0)
     INSERT INTO runtime_rank_buckets (board_id, lower, upper, n)
     SELECT s.board_id, s.lower, lead(s.lower) OVER (PARTITION BY s.board_id ORDER BY s.i),
            least($4, coalesce(c.total, 0) - s.i)
     FROM starts s LEFT JOIN c ON c.board_id = s.board_id`,
    [...params, step],
  );
}
