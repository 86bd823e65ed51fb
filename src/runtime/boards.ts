// Boards: a leaderboard or partition for one reset period and ranking definition, made on first use.
import type pg from 'pg';
import { createFirstBucket } from '../store/rank-buckets.js';
import { removeReplacedBoards } from '../store/runtime-documents.js';
import type { Db, GameStage } from './doc-store.js';
import { periodStart } from './periods.js';
import type { LeaderboardPlan } from './runtime-config.js';

export interface Partition {
  /** '' for the whole leaderboard, else 'ATTR.VALUE' (several attributes: 'A.x.B.y'). */
  code: string;
  values: Record<string, unknown>;
}

export const WHOLE: Partition = { code: '', values: {} };

/** The leaderboard's short code as requests name a board: LB, or LB.ATTR.VALUE for a partition. */
export function boardShortCode(lb: LeaderboardPlan, partition: Partition): string {
  return partition.code ? `${lb.shortCode}.${partition.code}` : lb.shortCode;
}

/**
 * The partition an event's values post to besides the whole leaderboard; undefined when the leaderboard has no
 * partitions or the event has no value for one of them.
 */
export function partitionOf(
  lb: LeaderboardPlan,
  values: ReadonlyMap<string, unknown>,
): Partition | undefined {
  if (lb.partitions.length === 0) return undefined;
  const parts: string[] = [];
  const partValues: Record<string, unknown> = {};
  for (const attribute of lb.partitions) {
    const v = values.get(attribute);
    if (v === undefined || v === null) return undefined;
    parts.push(attribute, typeof v === 'string' ? v : JSON.stringify(v));
    partValues[attribute] = v;
  }
  return { code: parts.join('.'), values: partValues };
}

/** $1 game, $2 stage, $3 leaderboard, $4 partition, $5 period start, $6 spec. */
export const BOARD_WHERE = `game_id = $1 AND stage = $2 AND leaderboard = $3 AND partition = $4
  AND period_start = $5 AND spec = $6`;

export function boardParams(
  gs: GameStage,
  lb: LeaderboardPlan,
  partitionCode: string,
  nowMs: number,
): unknown[] {
  return [gs.game, gs.stage, lb.shortCode, partitionCode, periodStart(lb.reset, nowMs), lb.spec];
}

/** The board readers see now (current period, current definition), or undefined: no entry yet, so empty. */
export async function findBoard(
  db: Db,
  gs: GameStage,
  lb: LeaderboardPlan,
  partitionCode: string,
  nowMs: number,
): Promise<{ boardId: string; partValues: Record<string, unknown> } | undefined> {
  const { rows } = await db.query<{ board_id: string; part_values: Record<string, unknown> }>({
    name: 'runtime-board-find',
    text: `SELECT board_id, part_values FROM runtime_boards WHERE ${BOARD_WHERE}`,
    values: boardParams(gs, lb, partitionCode, nowMs),
  });
  const row = rows[0];
  return row ? { boardId: row.board_id, partValues: row.part_values } : undefined;
}

/**
 * Makes the board a writer posts to (the caller found none). The transaction that makes it removes the boards it
 * replaces with their entries and mirror documents: that is the reset.
 */
export async function openBoard(
  client: pg.PoolClient,
  gs: GameStage,
  lb: LeaderboardPlan,
  partition: Partition,
  nowMs: number,
): Promise<string> {
  const params = boardParams(gs, lb, partition.code, nowMs);
  const { rows } = await client.query<{ board_id: string }>(
    `INSERT INTO runtime_boards (game_id, stage, leaderboard, partition, period_start, spec, config_seq, part_values)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) ON CONFLICT DO NOTHING RETURNING board_id`,
    [...params, lb.configSeq, JSON.stringify(partition.values)],
  );
  const made = rows[0]?.board_id;
  if (!made) {
    // Another writer made it first (ON CONFLICT waited for its commit).
    const again = await findBoard(client, gs, lb, partition.code, nowMs);
    if (!again) throw new Error(`board ${boardShortCode(lb, partition)} vanished`);
    return again.boardId;
  }
  await createFirstBucket(client, made);
  // The boards the new one replaces (older periods, older definitions) go, mirror documents first. A server
  // whose clock or configuration lags a moment may make an older board: it replaces nothing newer.
  await removeReplacedBoards(client, gs, {
    leaderboard: lb.shortCode,
    partition: partition.code,
    boardId: made,
    period: periodStart(lb.reset, nowMs),
    configSeq: lb.configSeq,
    collection: lb.collection,
  });
  return made;
}
