// Access tokens: 32 random bytes (base64url) handed out once; only their SHA-256 is stored.
import { hash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  deleteAccessToken,
  deleteExpiredTokens,
  insertAccessToken,
  selectTokenOwner,
} from '../store/access-tokens.js';
import { withTransaction } from '../store/db.js';
import type { AuthAudit } from './auth-audit.js';
import { authErrors } from './errors.js';

export const ACCESS_TOKEN_DEFAULT_SECONDS = 3600;
export const ACCESS_TOKEN_MAX_SECONDS = 24 * 3600;

export interface TokenOwner {
  username: string;
  country: string;
  isAdmin: boolean;
  expiresAt: number;
}

export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export async function issueAccessToken(
  pool: pg.Pool,
  username: string,
  nowMs: number,
  lifetimeSeconds: number,
): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = nowMs + lifetimeSeconds * 1000;
  // Dated past the account's last end of sessions (sessions.ts), read in the same statement.
  const stored = await insertAccessToken(
    pool,
    hashToken(token),
    username,
    new Date(expiresAt),
    new Date(nowMs),
  );
  if (!stored) throw authErrors.accountNotFound(username);
  return { token, expiresAt };
}

/**
 * The token's owner; 401 when unknown, revoked, expired, issued before the account's sessions were ended
 * (sessions.ts) or the account is disabled.
 */
export async function verifyAccessToken(pool: pg.Pool, token: string, nowMs: number): Promise<TokenOwner> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw authErrors.badToken();
  const row = await selectTokenOwner(pool, hashToken(token));
  if (!row || row.disabled) throw authErrors.badToken();
  // Such a token is deleted when the sessions end; one written by a login racing the end may remain.
  if (row.revoked) throw authErrors.tokenRevoked();
  if (row.expires_at.getTime() <= nowMs) throw authErrors.tokenExpired();
  return {
    username: row.username,
    country: row.country,
    isAdmin: row.is_admin,
    expiresAt: row.expires_at.getTime(),
  };
}

/** Log out: the token is deleted, in one transaction with the write's audit entry. */
export async function revokeAccessToken(pool: pg.Pool, token: string, audit?: AuthAudit): Promise<void> {
  await withTransaction(pool, async (client) => {
    await deleteAccessToken(client, hashToken(token));
    await audit?.(client);
  });
}

export async function purgeExpiredTokens(pool: pg.Pool, nowMs: number): Promise<number> {
  return deleteExpiredTokens(pool, new Date(nowMs));
}
