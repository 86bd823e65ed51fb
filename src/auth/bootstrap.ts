// First start: create the administrator account when the store has no account at all.
import type pg from 'pg';
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
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM accounts');
  if (Number(rows[0]?.n) > 0) return { created: false, username };
  const generated = password ? undefined : generatePassword();
  const hash = await hashPassword(password ?? (generated as string));
  // ON CONFLICT: two processes starting together on one PostgreSQL must not both fail.
  const inserted = await pool.query(
    `INSERT INTO accounts (username, country, password_hash, is_admin) VALUES ($1, '', $2, true)
     ON CONFLICT (username) DO NOTHING`,
    [username.toLowerCase(), hash],
  );
  if (inserted.rowCount === 0) return { created: false, username };
  return generated ? { created: true, username, generatedPassword: generated } : { created: true, username };
}
