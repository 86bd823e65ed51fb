// Access tokens: 32 random bytes (base64url) handed out once; only their SHA-256 is stored.
import { hash, randomBytes } from 'node:crypto';
import type pg from 'pg';
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
  const res = await pool.query(
    `INSERT INTO access_tokens (token_hash, username, expires_at, created_at)
     SELECT $1::bytea, a.username, $3::timestamptz,
            GREATEST(a.sessions_ended_at + interval '1 millisecond', $4::timestamptz)
     FROM accounts a WHERE a.username = $2`,
    [hashToken(token), username, new Date(expiresAt), new Date(nowMs)],
  );
  if (res.rowCount === 0) throw authErrors.accountNotFound(username);
  return { token, expiresAt };
}

/**
 * The token's owner; 401 when unknown, revoked, expired, issued before the account's sessions were ended
 * (sessions.ts) or the account is disabled.
 */
export async function verifyAccessToken(pool: pg.Pool, token: string, nowMs: number): Promise<TokenOwner> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw authErrors.badToken();
  const { rows } = await pool.query<{
    username: string;
    country: string;
    is_admin: boolean;
    disabled: boolean;
    expires_at: Date;
    revoked: boolean;
  }>(
    `SELECT a.username, a.country, a.is_admin, a.disabled, t.expires_at,
            COALESCE(t.created_at <= a.sessions_ended_at, false) AS revoked
     FROM access_tokens t JOIN accounts a ON a.username = t.username WHERE t.token_hash = $1`,
    [hashToken(token)],
  );
  const row = rows[0];
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

export async function revokeAccessToken(pool: pg.Pool, token: string): Promise<void> {
  await pool.query('DELETE FROM access_tokens WHERE token_hash = $1', [hashToken(token)]);
}

export async function purgeExpiredTokens(pool: pg.Pool, nowMs: number): Promise<number> {
  const res = await pool.query('DELETE FROM access_tokens WHERE expires_at <= $1', [new Date(nowMs)]);
  return res.rowCount ?? 0;
}
