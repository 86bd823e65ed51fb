// The stores a benchmark runs on: the embedded store in a fresh folder, then a fresh PostgreSQL database.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

async function freshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const name = `playbase_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
  } catch (e) {
    console.log(`PostgreSQL not reachable at ${baseUrl} (${(e as Error).message}): skipped`);
    return undefined;
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  // JIT compiles a plan for up to a second; the query functions' costs make the planner ask for it (docs/nosql.md).
  url.searchParams.set('options', '-c jit=off');
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Runs `run` on each wanted store with the environment that points a server at it (`wanted`: a comma list of
 * pglite and postgres, from the suite's own variable), and answers what each run returned.
 */
export async function onEachStore<T>(
  wanted: string,
  run: (store: 'pglite' | 'postgres', env: Record<string, string>) => Promise<T>,
): Promise<T[]> {
  const stores = wanted.split(',');
  const results: T[] = [];
  if (stores.includes('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-'));
    try {
      results.push(await run('pglite', { PLAYBASE_DATA_DIR: dataDir, DATABASE_URL: '' }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const base =
    process.env.BENCH_DATABASE_URL ??
    process.env.PLAYBASE_TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const db = stores.includes('postgres') ? await freshDatabase(base) : undefined;
  if (db) {
    try {
      results.push(await run('postgres', { DATABASE_URL: db.url, PLAYBASE_DATA_DIR: '/nonexistent' }));
    } finally {
      await db.drop();
    }
  }
  return results;
}
