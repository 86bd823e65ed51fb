// The access_tokens table: the auth role's access tokens, kept as the SHA-256 of the token (hashing, checks and
// errors are the callers', src/auth/tokens.ts and sessions.ts). Account-level: no game scope, every call takes
// the db, then the token's hash or its account's username.
import type { Db } from './scope.js';

export interface TokenOwnerRow {
  username: string;
  country: string;
  is_admin: boolean;
  disabled: boolean;
  expires_at: Date;
  /** Issued at or before the account's sessions were last ended. */
  revoked: boolean;
}

/**
 * Stores a token of the account, dated past the account's last end of sessions (read in the same statement);
 * false when there is no such account.
 */
export async function insertAccessToken(
  db: Db,
  tokenHash: Buffer,
  username: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO access_tokens (token_hash, username, expires_at, created_at)
     SELECT $1::bytea, a.username, $3::timestamptz,
            GREATEST(a.sessions_ended_at + interval '1 millisecond', $4::timestamptz)
     FROM accounts a WHERE a.username = $2`,
    [tokenHash, username, expiresAt, now],
  );
  return res.rowCount !== 0;
}

/** The token's account, its expiry and whether an end of sessions revoked it; undefined when unknown. */
export async function selectTokenOwner(db: Db, tokenHash: Buffer): Promise<TokenOwnerRow | undefined> {
  const { rows } = await db.query<TokenOwnerRow>(
    `SELECT a.username, a.country, a.is_admin, a.disabled, t.expires_at,
            COALESCE(t.created_at <= a.sessions_ended_at, false) AS revoked
     FROM access_tokens t JOIN accounts a ON a.username = t.username WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

export async function deleteAccessToken(db: Db, tokenHash: Buffer): Promise<void> {
  await db.query('DELETE FROM access_tokens WHERE token_hash = $1', [tokenHash]);
}

/** Deletes every token that expired at or before `now`; answers how many. */
export async function deleteExpiredTokens(db: Db, now: Date): Promise<number> {
  const res = await db.query('DELETE FROM access_tokens WHERE expires_at <= $1', [now]);
  return res.rowCount ?? 0;
}

/** Deletes the account's tokens but the one hashed `keptHash` (an empty buffer keeps none). */
export async function deleteAccountTokens(db: Db, username: string, keptHash: Buffer): Promise<void> {
  await db.query('DELETE FROM access_tokens WHERE username = $1 AND token_hash <> $2', [username, keptHash]);
}

/** Dates the token past its account's last end of sessions, so that the end does not refuse it. */
export async function restampAccessToken(db: Db, tokenHash: Buffer): Promise<void> {
  await db.query(
    `UPDATE access_tokens t SET created_at = GREATEST(t.created_at, a.sessions_ended_at + interval '1 millisecond')
     FROM accounts a WHERE a.username = t.username AND t.token_hash = $1`,
    [tokenHash],
  );
}
