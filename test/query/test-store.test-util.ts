// Test support: a fresh store (in-memory PGlite, or a throwaway schema on PostgreSQL) with migrations 0003
// and 0010, the nosql_documents table, the multikey record (0014, 0015, 0019) and the count entries (0020), for
// the query engine's tests.
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { renderMigration } from '../../src/store/migrate.js';

export interface TestStore {
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

const MIGRATIONS = ['0003_query_functions.sql', '0010_key_functions_plpgsql.sql'].map(
  (f) => new URL(`../../src/store/migrations/${f}`, import.meta.url),
);
/**
 * The multikey record, its triggers (0014, then the trigger's fast path 0015) and its check (0019), and the count
 * entries with their triggers (0020), after the tables.
 */
const MULTIKEY = [
  '0014_multikey_fields.sql',
  '0015_multikey_write_fast_path.sql',
  '0019_multikey_guard_function.sql',
  '0020_index_key_entries.sql',
].map((f) => new URL(`../../src/store/migrations/${f}`, import.meta.url));
const read = (url: URL) => readFileSync(url, 'utf8');
const sqlOf = (schema: string) =>
  [...MIGRATIONS.map(read), TABLE_SQL, ...MULTIKEY.map(read)]
    .map((sql) => renderMigration(sql, schema))
    .join(';\n');
const TABLE_SQL = `CREATE TABLE nosql_documents (
  game_id text, stage text, collection text, id text, doc jsonb NOT NULL,
  PRIMARY KEY (game_id, stage, collection, id));
CREATE TABLE nosql_indexes (
  game_id text, stage text, collection text, name text, keys jsonb, "unique" boolean, pg_name text)`;

const PG_URL = process.env.PLAYBASE_TEST_DATABASE_URL;

async function openPglite(): Promise<TestStore> {
  const db = new PGlite();
  await db.exec(sqlOf('public'));
  return {
    name: 'pglite',
    query: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
    close: () => db.close(),
  };
}

async function openPostgres(url: string): Promise<TestStore> {
  const schema = `pb_query_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
  await pool.query(sqlOf(schema));
  return {
    name: 'postgres',
    query: async <T>(sql: string, params?: unknown[]) =>
      (await pool.query(sql, params as unknown[])).rows as T[],
    close: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}

/** The stores every suite runs on: PGlite always, PostgreSQL when PLAYBASE_TEST_DATABASE_URL is set. */
export const STORES: Array<{ name: string; open: () => Promise<TestStore> }> = [
  { name: 'pglite', open: openPglite },
  ...(PG_URL ? [{ name: 'postgres', open: () => openPostgres(PG_URL) }] : []),
];
