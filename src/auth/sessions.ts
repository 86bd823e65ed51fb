// Ending an account's sessions: the `sessions_ended_at` instant (migration 0011), moved by disabling, a password
// change or reset and "log out everywhere"; every JWT and access token issued at or before it is refused.
import type pg from 'pg';
import { deleteAccountTokens, restampAccessToken } from '../store/access-tokens.js';
import { selectAccountState, updateSessionsEnd } from '../store/accounts.js';
import { withTransaction } from '../store/db.js';
import type { Db } from '../store/scope.js';
import type { AuthAudit } from './auth-audit.js';
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
  const row = await selectAccountState(pool, username);
  if (!row) return MISSING;
  return { disabled: row.disabled, sessionsEndedAt: row.sessions_ended_at?.getTime() ?? 0 };
}

/**
 * When a token issued now is dated: now, or 1 ms past the account's last move if that is later (same millisecond,
 * or another process's clock a little ahead), so that a token issued after the move is never refused by it.
 */
export function issueStamp(nowMs: number, account: AccountState): number {
  return Math.max(nowMs, account.sessionsEndedAt + 1);
}

/**
 * Ends every session of the account at `nowMs`: JWTs and access tokens issued before are refused from the next
 * request, and the access tokens are deleted (the move of the end is strictly ordered, store/accounts.ts). One
 * transaction with the write's audit entry.
 */
export async function endSessions(
  pool: pg.Pool,
  username: string,
  nowMs: number,
  audit?: AuthAudit,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await updateSessionsEnd(client, username, new Date(nowMs));
    await deleteTokensExcept(client, username);
    await audit?.(client);
  });
}

/**
 * Deletes the account's access tokens but `keepToken` (the session that changed the password), which is dated
 * past the account's last move so that it goes on.
 */
export async function deleteTokensExcept(client: Db, username: string, keepToken?: string): Promise<void> {
  const kept = keepToken ? hashToken(keepToken) : Buffer.alloc(0);
  await deleteAccountTokens(client, username, kept);
  if (!keepToken) return;
  await restampAccessToken(client, kept);
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
