// Numbered SQL migrations, applied at start in order, once each, under an advisory lock.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary constant shared by every Playbase process: serializes concurrent starts on one database.
const MIGRATION_LOCK_KEY = 7_404_202_611;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/** A migration's SQL for a schema: `{{schema}}` becomes the quoted schema (qualified names survive index builds). */
export function renderMigration(sql: string, schema: string): string {
  return sql.replaceAll('{{schema}}', `"${schema.replaceAll('"', '""')}"`);
}

/** Applies every migration not yet recorded; returns the names applied. Safe to run from many processes. */
export async function migrate(pool: pg.Pool, migrations = listMigrations()): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public';
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(renderMigration(m.sql, schema));
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(e as Error).message}`, { cause: e });
      }
      applied.push(m.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}
