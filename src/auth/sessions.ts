// Ending an account's sessions: the `sessions_ended_at` instant (migration 0011), moved by disabling, a password
// change or reset and "log out everywhere"; every JWT and access token issued at or before it is refused.
import type pg from 'pg';
import { hashToken } from './tokens.js';

/** What the credential checks need to know of an account, remembered by the auth cache. */
export interface AccountState {
  disabled: boolean;
  /** Epoch ms; a JWT or access token issued at or before it is refused. 0 when never moved. */
  sessionsEndedAt: number;
}

/** An account that does not exist (any more): refused like a disabled one. */
const MISSING: AccountState = Object.freeze({ disabled: true, sessionsEndedAt: 0 });

export async function readAccountState(pool: pg.Pool, username: string): Promise<AccountState> {
  const { rows } = await pool.query<{ disabled: boolean; sessions_ended_at: Date | null }>(
    'SELECT disabled, sessions_ended_at FROM accounts WHERE username = $1',
    [username],
  );
  const row = rows[0];
  if (!row) return MISSING;
  return { disabled: row.disabled, sessionsEndedAt: row.sessions_ended_at?.getTime() ?? 0 };
}

/**
 * SQL (an UPDATE's SET item) that moves `sessions_ended_at` to the instant $n, or 1 ms past its last move if that
 * is later: moves are strictly ordered, so a token stamped after one (issueStamp) is never caught by the next.
 */
export const moveSessionsEnd = (n: number) =>
  `sessions_ended_at = GREATEST(sessions_ended_at + interval '1 millisecond', $${n})`;

/**
 * When a token issued now is dated: now, or 1 ms past the account's last move if that is later (same millisecond,
 * or another process's clock a little ahead), so that a token issued after the move is never refused by it.
 */
export function issueStamp(nowMs: number, account: AccountState): number {
  return Math.max(nowMs, account.sessionsEndedAt + 1);
}

/**
 * Ends every session of the account at `nowMs`: JWTs and access tokens issued before are refused from the next
 * request, and the access tokens are deleted.
 */
export async function endSessions(pool: pg.Pool, username: string, nowMs: number): Promise<void> {
  await pool.query(`UPDATE accounts SET ${moveSessionsEnd(2)} WHERE username = $1`, [
    username,
    new Date(nowMs),
  ]);
  await deleteTokensExcept(pool, username);
}

/**
 * Deletes the account's access tokens but `keepToken` (the session that changed the password), which is dated
 * past the account's last move so that it goes on.
 */
export async function deleteTokensExcept(
  client: pg.PoolClient | pg.Pool,
  username: string,
  keepToken?: string,
): Promise<void> {
  const kept = keepToken ? hashToken(keepToken) : Buffer.alloc(0);
  await client.query('DELETE FROM access_tokens WHERE username = $1 AND token_hash <> $2', [username, kept]);
  if (!keepToken) return;
  await client.query(
    `UPDATE access_tokens t SET created_at = GREATEST(t.created_at, a.sessions_ended_at + interval '1 millisecond')
     FROM accounts a WHERE a.username = t.username AND t.token_hash = $1`,
    [kept],
  );
}

/**
 * When a JWT was issued, in epoch ms: the `iatMs` claim of the JWTs this server signs, else (a JWT signed before
 * the claim existed) the start of its `iat` second: such a JWT issued in the second of a move is refused, whichever
 * side of the move it was.
 */
export function jwtIssuedAtMs(claims: { iat: number; iatMs?: number }): number {
  return typeof claims.iatMs === 'number' ? claims.iatMs : claims.iat * 1000;
}

/** True when a credential issued at `issuedMs` predates the end of the account's sessions. */
export function endedBefore(issuedMs: number, account: AccountState): boolean {
  return issuedMs <= account.sessionsEndedAt;
}
