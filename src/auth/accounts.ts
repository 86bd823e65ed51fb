// Accounts: create, list, read, change (disable, enable, password), and the Basic login check.
import type pg from 'pg';
import {
  type AccountRow,
  insertAccount,
  selectAccount,
  selectAccounts,
  updateAccountRow,
  updatePasswordHash,
} from '../store/accounts.js';
import { withTransaction } from '../store/db.js';
import type { AuthAudit } from './auth-audit.js';
import { authErrors } from './errors.js';
import { decoyHash, hashPassword, verifyPassword } from './passwords.js';
import { deleteTokensExcept } from './sessions.js';

export interface Account {
  username: string;
  country: string;
  isAdmin: boolean;
  disabled: boolean;
  created: string;
}

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

/** A new account, in one transaction with the write's audit entry. */
export async function createAccount(
  pool: pg.Pool,
  input: { username: string; password: string; country: string },
  nowMs: number,
  audit?: AuthAudit,
): Promise<Account> {
  checkPassword(input.password);
  const hash = await hashPassword(input.password);
  const username = normalizeUsername(input.username);
  return withTransaction(pool, async (client) => {
    const row = await insertAccount(client, username, {
      country: input.country,
      passwordHash: hash,
      at: new Date(nowMs),
    });
    if (!row) throw authErrors.accountExists(username);
    await audit?.(client);
    return toAccount(row);
  });
}

export async function listAccounts(pool: pg.Pool): Promise<Account[]> {
  return (await selectAccounts(pool)).map(toAccount);
}

export async function getAccount(pool: pg.Pool, username: string): Promise<Account> {
  const row = await selectAccount(pool, normalizeUsername(username));
  if (!row) throw authErrors.accountNotFound(username);
  return toAccount(row);
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
  audit?: AuthAudit,
): Promise<Account> {
  const current = await getAccount(pool, username);
  if (change.password !== undefined) checkPassword(change.password);
  const hash = change.password !== undefined ? await hashPassword(change.password) : null;
  const endsSessions = change.disabled === true || hash !== null;
  return withTransaction(pool, async (client) => {
    const row = await updateAccountRow(
      client,
      current.username,
      { disabled: change.disabled, passwordHash: hash, country: change.country },
      new Date(nowMs),
      endsSessions,
    );
    if (endsSessions) await deleteTokensExcept(client, current.username);
    await audit?.(client);
    return toAccount(row as AccountRow);
  });
}

/** Checks a Basic login; the same work is done for unknown names so timing does not tell them apart. */
export async function verifyLogin(
  pool: pg.Pool,
  username: string,
  password: string,
): Promise<Account | undefined> {
  const row = await selectAccount(pool, normalizeUsername(username));
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
  audit?: AuthAudit,
): Promise<void> {
  checkPassword(newPassword);
  const hash = await hashPassword(newPassword);
  await withTransaction(pool, async (client) => {
    await updatePasswordHash(client, username, hash, new Date(nowMs));
    await deleteTokensExcept(client, username, keepToken);
    await audit?.(client);
  });
}
