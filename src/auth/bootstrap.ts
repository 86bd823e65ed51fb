// First start: create the administrator account when the store has no account at all.
import type pg from 'pg';
import { countAccounts, insertAdministrator } from '../store/accounts.js';
import { generatePassword, hashPassword } from './passwords.js';

export interface BootstrapResult {
  created: boolean;
  username: string;
  /** Set only when the password was generated: the caller shows it once, on the terminal. */
  generatedPassword?: string;
}

export async function ensureAdministrator(
  pool: pg.Pool,
  username: string,
  password: string | undefined,
): Promise<BootstrapResult> {
  if ((await countAccounts(pool)) > 0) return { created: false, username };
  const generated = password ? undefined : generatePassword();
  const hash = await hashPassword(password ?? (generated as string));
  // Two processes starting together on one PostgreSQL must not both fail: the second finds the name taken.
  const inserted = await insertAdministrator(pool, username.toLowerCase(), hash);
  if (!inserted) return { created: false, username };
  return generated ? { created: true, username, generatedPassword: generated } : { created: true, username };
}
