// The accounts table: the people who sign in to the auth role, with their password hash and the instant their
// sessions were last ended (migration 0011). Account-level: no game scope, every call takes the db, then the
// account's username (already normalized by the caller). Hashing, checks and errors are the callers'
// (src/auth/accounts.ts, sessions.ts, bootstrap.ts).
import type { Db } from './scope.js';

export interface AccountRow {
  username: string;
  country: string;
  is_admin: boolean;
  disabled: boolean;
  created_at: Date;
  password_hash: string;
}

const COLUMNS = 'username, country, is_admin, disabled, created_at, password_hash';

/**
 * An UPDATE's SET item that moves `sessions_ended_at` to the instant $n, or 1 ms past its last move if that is
 * later: moves are strictly ordered, so a token stamped after one (issueStamp) is never caught by the next.
 */
const moveSessionsEnd = (n: number) =>
  `sessions_ended_at = GREATEST(sessions_ended_at + interval '1 millisecond', $${n})`;

export async function countAccounts(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM accounts');
  return Number(rows[0]?.n);
}

/** The first administrator; false when the name is taken (two processes starting together on one database). */
export async function insertAdministrator(db: Db, username: string, passwordHash: string): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO accounts (username, country, password_hash, is_admin) VALUES ($1, '', $2, true)
     ON CONFLICT (username) DO NOTHING`,
    [username, passwordHash],
  );
  return inserted.rowCount !== 0;
}

/** The new account's row, or undefined when the name is taken. */
export async function insertAccount(
  db: Db,
  username: string,
  input: { country: string; passwordHash: string; at: Date },
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (username, country, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (username) DO NOTHING RETURNING ${COLUMNS}`,
    [username, input.country, input.passwordHash, input.at],
  );
  return rows[0];
}

/** Every account, by name. */
export async function selectAccounts(db: Db): Promise<AccountRow[]> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY username`);
  return rows;
}

export async function selectAccount(db: Db, username: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE username = $1`, [
    username,
  ]);
  return rows[0];
}

/** True when the account exists (and, with `enabledOnly`, is not disabled). */
export async function accountExists(db: Db, username: string, enabledOnly = false): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM accounts WHERE username = $1${enabledOnly ? ' AND NOT disabled' : ''}`,
    [username],
  );
  return rows.length > 0;
}

/**
 * Changes the fields given (null or absent: unchanged); with `endSessions` also moves the end of the account's
 * sessions to `at`. Undefined when there is no such account.
 */
export async function updateAccountRow(
  db: Db,
  username: string,
  change: { disabled?: boolean | undefined; passwordHash: string | null; country?: string | undefined },
  at: Date,
  endSessions: boolean,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET disabled = COALESCE($2, disabled), password_hash = COALESCE($3, password_hash),
       country = COALESCE($4, country), updated_at = $5${endSessions ? `, ${moveSessionsEnd(5)}` : ''}
     WHERE username = $1 RETURNING ${COLUMNS}`,
    [username, change.disabled ?? null, change.passwordHash, change.country ?? null, at],
  );
  return rows[0];
}

/** A new password hash; the account's sessions end at `at`. */
export async function updatePasswordHash(
  db: Db,
  username: string,
  passwordHash: string,
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE accounts SET password_hash = $2, updated_at = $3, ${moveSessionsEnd(3)} WHERE username = $1`,
    [username, passwordHash, at],
  );
}

/** Moves the end of the account's sessions to `at` (or 1 ms past its last move). */
export async function updateSessionsEnd(db: Db, username: string, at: Date): Promise<void> {
  await db.query(`UPDATE accounts SET ${moveSessionsEnd(2)} WHERE username = $1`, [username, at]);
}

/** What the credential checks need of an account; undefined when there is no such account. */
export async function selectAccountState(
  db: Db,
  username: string,
): Promise<{ disabled: boolean; sessions_ended_at: Date | null } | undefined> {
  const { rows } = await db.query<{ disabled: boolean; sessions_ended_at: Date | null }>(
    'SELECT disabled, sessions_ended_at FROM accounts WHERE username = $1',
    [username],
  );
  return rows[0];
}
