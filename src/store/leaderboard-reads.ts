// The runtime_entries reads: a page by rank, the last entries, the entries around a player. Each read is one
// statement (one snapshot), so the ranks it answers agree with each other even while writers post.
import type pg from 'pg';
import { fromStored } from '../query/values.js';
import { withTransaction } from './db.js';
import type { Db } from './scope.js';

export interface RankedEntry {
  playerId: string;
  userName: string | null;
  /** Field values in the leaderboard's field order; undefined when the entry has none. */
  values: unknown[];
  whenMs: number;
  rank: number;
}

interface EntryRow {
  player_id: string;
  vals: unknown[];
  when_ms: string;
  user_name: string | null;
}

const COLUMNS = 'player_id, vals, when_ms, user_name';

function ranked(rows: EntryRow[], firstRank: number): RankedEntry[] {
  return rows.map((r, i) => ({
    playerId: r.player_id,
    userName: r.user_name,
    values: r.vals.map((v) => (v === null ? undefined : fromStored(v))),
    whenMs: Number(r.when_ms),
    rank: firstRank + i,
  }));
}

/** Runs several reads in one REPEATABLE READ snapshot, so the parts of one answer agree. */
export function withSnapshot<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

export async function countEntries(db: Db, boardId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT coalesce(sum(n), 0) AS n FROM runtime_rank_buckets WHERE board_id = $1',
    [boardId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Entries before an ord ($2) on board $1: the counts of the buckets before the one holding it, plus the entries
 * of that bucket before it (at most a bucket's size). `h` is the holding bucket.
 */
const BEFORE = (ord: string) => `
  (SELECT coalesce(sum(n), 0) FROM runtime_rank_buckets WHERE board_id = $1 AND lower < (SELECT lower FROM h))
  + (SELECT count(*) FROM runtime_entries WHERE board_id = $1 AND ord >= (SELECT lower FROM h) AND ord < ${ord})`;
const HOLDER = (ord: string) => `h AS MATERIALIZED (
  SELECT lower FROM runtime_rank_buckets WHERE board_id = $1 AND lower <= ${ord} ORDER BY lower DESC LIMIT 1)`;

/** How many entries come before `ord`. */
export async function entriesBefore(db: Db, boardId: string, ord: Buffer): Promise<number> {
  const { rows } = await db.query<{ before: string }>(
    `WITH ${HOLDER('$2')} SELECT ${BEFORE('$2')} AS before`,
    [boardId, ord],
  );
  return Number(rows[0]?.before ?? 0);
}

/** Entries from rank offset + 1 on: the buckets' running counts say where that rank starts (no long OFFSET scan). */
export async function entriesFrom(
  db: Db,
  boardId: string,
  offset: number,
  limit: number,
): Promise<RankedEntry[]> {
  if (limit <= 0) return [];
  const { rows } = await db.query<EntryRow>({
    // Named: pg prepares it once per connection, so the planner's work is not paid on every read.
    name: 'runtime-entries-from',
    text: `WITH t AS MATERIALIZED (
       SELECT lower, before FROM (
         SELECT lower, sum(n) OVER (ORDER BY lower) - n AS before FROM runtime_rank_buckets WHERE board_id = $1) c
       WHERE before <= $2 ORDER BY lower DESC LIMIT 1)
     SELECT ${COLUMNS} FROM runtime_entries
     WHERE board_id = $1 AND ord >= coalesce((SELECT lower FROM t), '\\x'::bytea)
     ORDER BY ord OFFSET ($2 - coalesce((SELECT before FROM t), 0)) LIMIT $3`,
    values: [boardId, offset, limit],
  });
  return ranked(rows, offset + 1);
}

export async function lastEntries(
  db: Db,
  boardId: string,
  limit: number,
  total: number,
): Promise<RankedEntry[]> {
  if (limit <= 0) return [];
  const { rows } = await db.query<EntryRow>(
    `SELECT ${COLUMNS} FROM runtime_entries WHERE board_id = $1 ORDER BY ord DESC LIMIT $2`,
    [boardId, limit],
  );
  return ranked(rows.reverse(), total - rows.length + 1);
}

/** The player's entry with up to `count` entries ahead and `count` behind; empty when the player has none. */
export async function entriesAround(
  db: Db,
  boardId: string,
  playerId: string,
  count: number,
): Promise<RankedEntry[]> {
  const me = '(SELECT ord FROM me)';
  const { rows } = await db.query<EntryRow & { side: number; before: string }>({
    name: 'runtime-entries-around',
    text: `WITH me AS MATERIALIZED (SELECT ord FROM runtime_entries WHERE board_id = $1 AND player_id = $2),
       ${HOLDER(me)}
     SELECT side, ${COLUMNS}, ${BEFORE(me)} AS before FROM (
       (SELECT -1 AS side, ord, ${COLUMNS} FROM runtime_entries WHERE board_id = $1 AND ord < ${me}
        ORDER BY ord DESC LIMIT $3)
       UNION ALL
       (SELECT 0, ord, ${COLUMNS} FROM runtime_entries WHERE board_id = $1 AND ord = ${me})
       UNION ALL
       (SELECT 1, ord, ${COLUMNS} FROM runtime_entries WHERE board_id = $1 AND ord > ${me} ORDER BY ord LIMIT $3)
     ) around ORDER BY ord`,
    values: [boardId, playerId, count],
  });
  const mine = rows.find((r) => r.side === 0);
  if (!mine) return [];
  const ahead = rows.filter((r) => r.side < 0).length;
  return ranked(rows, Number(mine.before) - ahead + 1);
}
