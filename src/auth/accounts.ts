// Accounts: create, list, read, change (disable, enable, password), and the Basic login check.
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import { authErrors } from './errors.js';
import { decoyHash, hashPassword, verifyPassword } from './passwords.js';
import { deleteTokensExcept, moveSessionsEnd } from './sessions.js';

export interface Account {
  username: string;
  country: string;
  isAdmin: boolean;
  disabled: boolean;
  created: string;
}

interface AccountRow {
  username: string;
  country: string;
  is_admin: boolean;
  disabled: boolean;
  created_at: Date;
  password_hash: string;
}

const COLUMNS = 'username, country, is_admin, disabled, created_at, password_hash';

function toAccount(row: AccountRow): Account {
  return {
    username: row.username,
    country: row.country,
    isAdmin: row.is_admin,
    disabled: row.disabled,
    created: row.created_at.toISOString(),
  };
}

export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

function checkPassword(password: string): void {
  if (password.length < 8) throw authErrors.weakPassword();
}

export async function createAccount(
  pool: pg.Pool,
  input: { username: string; password: string; country: string },
  nowMs: number,
): Promise<Account> {
  checkPassword(input.password);
  const hash = await hashPassword(input.password);
  const { rows } = await pool.query<AccountRow>(
    `INSERT INTO accounts (username, country, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (username) DO NOTHING RETURNING ${COLUMNS}`,
    [normalizeUsername(input.username), input.country, hash, new Date(nowMs)],
  );
  if (!rows[0]) throw authErrors.accountExists(normalizeUsername(input.username));
  return toAccount(rows[0]);
}

export async function listAccounts(pool: pg.Pool): Promise<Account[]> {
  const { rows } = await pool.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY username`);
  return rows.map(toAccount);
}

export async function getAccount(pool: pg.Pool, username: string): Promise<Account> {
  const { rows } = await pool.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE username = $1`, [
    normalizeUsername(username),
  ]);
  if (!rows[0]) throw authErrors.accountNotFound(username);
  return toAccount(rows[0]);
}

/**
 * Disabling or resetting the password ends every session of the account at once: its access tokens are deleted
 * and the JWTs issued before are refused (sessions.ts), also after the account is enabled again.
 */
export async function updateAccount(
  pool: pg.Pool,
  username: string,
  change: { disabled?: boolean; password?: string; country?: string },
  nowMs: number,
): Promise<Account> {
  const current = await getAccount(pool, username);
  if (change.password !== undefined) checkPassword(change.password);
  const hash = change.password !== undefined ? await hashPassword(change.password) : null;
  const endsSessions = change.disabled === true || hash !== null;
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<AccountRow>(
      `UPDATE accounts SET disabled = COALESCE($2, disabled), password_hash = COALESCE($3, password_hash),
         country = COALESCE($4, country), updated_at = $5${endsSessions ? `, ${moveSessionsEnd(5)}` : ''}
       WHERE username = $1 RETURNING ${COLUMNS}`,
      [current.username, change.disabled ?? null, hash, change.country ?? null, new Date(nowMs)],
    );
    if (endsSessions) await deleteTokensExcept(client, current.username);
    return toAccount(rows[0] as AccountRow);
  });
}

/** Checks a Basic login; the same work is done for unknown names so timing does not tell them apart. */
export async function verifyLogin(
  pool: pg.Pool,
  username: string,
  password: string,
): Promise<Account | undefined> {
  const { rows } = await pool.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE username = $1`, [
    normalizeUsername(username),
  ]);
  const row = rows[0];
  const ok = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  if (!row || !ok || row.disabled) return undefined;
  return toAccount(row);
}

/**
 * Sets a new password (the caller has proved the current one). Every other session ends: a changed password is
 * often a response to a leaked one. `keepToken`, the session that asked, goes on.
 */
export async function changeOwnPassword(
  pool: pg.Pool,
  username: string,
  newPassword: string,
  keepToken: string | undefined,
  nowMs: number,
): Promise<void> {
  checkPassword(newPassword);
  const hash = await hashPassword(newPassword);
  await withTransaction(pool, async (client) => {
    await client.query(
      `UPDATE accounts SET password_hash = $2, updated_at = $3, ${moveSessionsEnd(3)} WHERE username = $1`,
      [username, hash, new Date(nowMs)],
    );
    await deleteTokensExcept(client, username, keepToken);
  });
}
