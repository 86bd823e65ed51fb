// AuthenticationRequest lockout: after N failed attempts in a row for a user name, LOCKED for a while.
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import type { Db, GameStage } from './doc-store.js';

export interface LockoutPolicy {
  /** Failed attempts in a row that lock the user name (default 5). */
  maxFailures: number;
  /** How long it stays locked, in ms of the runtime clock (default 15 minutes). */
  lockMs: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { maxFailures: 5, lockMs: 15 * 60_000 };

export async function isLocked(db: Db, gs: GameStage, userName: string, nowMs: number): Promise<boolean> {
  const { rows } = await db.query<{ locked_until: string }>(
    'SELECT locked_until FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3',
    [gs.game, gs.stage, userName],
  );
  return Number(rows[0]?.locked_until ?? 0) > nowMs;
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
    await client.query(
      `INSERT INTO runtime_login_failures (game_id, stage, user_name, failures) VALUES ($1, $2, $3, 0)
       ON CONFLICT DO NOTHING`,
      [gs.game, gs.stage, userName],
    );
    const { rows } = await client.query<{ failures: number; locked_until: string }>(
      `SELECT failures, locked_until FROM runtime_login_failures
       WHERE game_id = $1 AND stage = $2 AND user_name = $3 FOR UPDATE`,
      [gs.game, gs.stage, userName],
    );
    const row = rows[0] ?? { failures: 0, locked_until: '0' };
    const expired = Number(row.locked_until) !== 0 && Number(row.locked_until) <= nowMs;
    const failures = (expired ? 0 : row.failures) + 1;
    const lockedUntil =
      failures >= policy.maxFailures ? nowMs + policy.lockMs : expired ? 0 : Number(row.locked_until);
    await client.query(
      `UPDATE runtime_login_failures SET failures = $4, locked_until = $5
       WHERE game_id = $1 AND stage = $2 AND user_name = $3`,
      [gs.game, gs.stage, userName, failures >= policy.maxFailures ? 0 : failures, lockedUntil],
    );
    return lockedUntil > nowMs;
  });
}

export async function clearFailures(db: Db, gs: GameStage, userName: string): Promise<void> {
  await db.query('DELETE FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3', [
    gs.game,
    gs.stage,
    userName,
  ]);
}
