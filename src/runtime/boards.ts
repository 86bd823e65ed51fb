// Boards: a leaderboard or partition for one reset period and ranking definition, made on first use.
import type pg from 'pg';
import { type BoardKey, findBoard as findBoardRow, insertBoard } from '../store/runtime-boards.js';
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

/** The board of that partition for the period `nowMs` falls in, under the leaderboard's current definition. */
export function boardKey(lb: LeaderboardPlan, partitionCode: string, nowMs: number): BoardKey {
  return {
    leaderboard: lb.shortCode,
    partition: partitionCode,
    periodStart: periodStart(lb.reset, nowMs),
    spec: lb.spec,
  };
}

/** The board readers see now (current period, current definition), or undefined: no entry yet, so empty. */
export async function findBoard(
  db: Db,
  gs: GameStage,
  lb: LeaderboardPlan,
  partitionCode: string,
  nowMs: number,
): Promise<{ boardId: string; partValues: Record<string, unknown> } | undefined> {
  return findBoardRow(db, gs, boardKey(lb, partitionCode, nowMs));
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
  const made = await insertBoard(client, gs, boardKey(lb, partition.code, nowMs), {
    configSeq: lb.configSeq,
    partValues: partition.values,
  });
  if (!made) {
    // Another writer made it first (ON CONFLICT waited for its commit).
    const again = await findBoard(client, gs, lb, partition.code, nowMs);
    if (!again) throw new Error(`board ${boardShortCode(lb, partition)} vanished`);
    return again.boardId;
  }
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
