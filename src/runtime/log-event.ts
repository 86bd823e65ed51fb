// LogEventRequest's core: one transaction updates every running total and leaderboard the event feeds.
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import { applyBucketChanges, type BucketChange } from '../store/rank-buckets.js';
import { holdDoc } from '../store/runtime-documents.js';
import type { GameStage } from './doc-store.js';
import type { AttributeValues } from './event-attributes.js';
import { postToLeaderboard } from './leaderboard-write.js';
import { updateRunningTotal } from './running-totals.js';
import type { EventPlan } from './runtime-config.js';

// Deadlock, serialization failure, and a board deleted by the writer that opened the next period (FK): all
// transient races between writers; the whole transaction runs again.
const RETRIED = new Set(['40P01', '40001', '23503']);
const ATTEMPTS = 5;

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (attempt >= ATTEMPTS || !code || !RETRIED.has(code)) throw e;
    }
  }
}

export interface LoggedEvent {
  plan: EventPlan;
  values: AttributeValues;
  playerId: string;
  userName: string | null;
  nowMs: number;
  /**
   * The player document's id key: held first in the transaction, so an erase (docs/players.md) either waits for
   * the event or makes it write nothing. Absent (tests of the ranking alone): no player document is read.
   */
  playerKey?: string;
}

/** Why an event wrote nothing: its player was erased or banned while the event was on its way. */
export type Refused = 'UNRECOGNISED' | 'LOCKED';

/**
 * Running totals first, then leaderboard entries, then the shared rank buckets in one global order: per-player
 * rows are locked before shared ones, so concurrent events wait for each other at most, never in a cycle.
 * Answers the leaderboard entries the committed transaction wrote (a partitioned board's entry counts twice: the
 * whole board's and the partition's).
 */
export async function applyEvent(
  pool: pg.Pool,
  gs: GameStage,
  e: LoggedEvent,
  bucketSize?: number,
): Promise<number | Refused> {
  return withRetry(() =>
    withTransaction(pool, async (client): Promise<number | Refused> => {
      if (e.playerKey !== undefined) {
        const held = await holdDoc(client, gs, 'player', e.playerKey);
        if (!held) return 'UNRECOGNISED';
        if (held.banned) return 'LOCKED';
      }
      for (const rt of e.plan.runningTotals) {
        await updateRunningTotal(client, gs, rt, e.playerId, e.values, e.nowMs);
      }
      const changes: BucketChange[] = [];
      let written = 0;
      const poster = {
        playerId: e.playerId,
        userName: e.userName,
        event: e.plan.shortCode,
        values: e.values,
        nowMs: e.nowMs,
      };
      for (const lb of e.plan.leaderboards) {
        const posted = await postToLeaderboard(client, gs, lb, poster);
        written += posted.written;
        changes.push(...posted.changes);
      }
      await applyBucketChanges(client, changes, bucketSize);
      return written;
    }),
  );
}
