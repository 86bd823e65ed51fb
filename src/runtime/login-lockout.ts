// AuthenticationRequest lockout: after N failed attempts in a row for a user name, LOCKED for a while.
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import { lockedUntil, lockFailures, setFailures } from '../store/runtime-players.js';
import type { Db, GameStage } from './doc-store.js';

export { clearFailures } from '../store/runtime-players.js';

export interface LockoutPolicy {
  /** Failed attempts in a row that lock the user name (default 5). */
  maxFailures: number;
  /** How long it stays locked, in ms of the runtime clock (default 15 minutes). */
  lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { maxFailures: 5, lockMs: 15 * 60_000 };

export async function isLocked(db: Db, gs: GameStage, userName: string, nowMs: number): Promise<boolean> {
  return (await lockedUntil(db, gs, userName)) > nowMs;
}

/** Counts a failure; a lock that has run out starts the count again. Answers whether the name is now locked. */
export async function recordFailure(
  pool: pg.Pool,
  gs: GameStage,
  userName: string,
  nowMs: number,
  policy: LockoutPolicy,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const row = await lockFailures(client, gs, userName);
    const expired = row.lockedUntil !== 0 && row.lockedUntil <= nowMs;
    const failures = (expired ? 0 : row.failures) + 1;
    const until = failures >= policy.maxFailures ? nowMs + policy.lockMs : expired ? 0 : row.lockedUntil;
    await setFailures(client, gs, userName, {
      failures: failures >= policy.maxFailures ? 0 : failures,
      lockedUntil: until,
    });
    return until > nowMs;
  });
}
