// Helpers of the topology process test (test/process/cluster-topology.test.ts): HTTP calls, polling within a
// bound, a store of its own per process, and reading a PostgreSQL store directly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../harness.js';
import { sharedPostgres } from '../processes.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
export type Json = Record<string, any>;

export async function call(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

/** Polls `probe` until it returns true; the time it took, or a failure naming what never happened. */
export async function within(what: string, limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`${what}: not seen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Place {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A store of its own: a PostgreSQL schema on the PostgreSQL run, a data folder on the embedded run. */
export async function place(): Promise<Place> {
  if (TEST_DATABASE_URL) {
    const db = await sharedPostgres(TEST_DATABASE_URL);
    const dir = mkdtempSync(join(tmpdir(), 'playbase-topo-'));
    return {
      env: { DATABASE_URL: db.url, PLAYBASE_DATA_DIR: dir },
      drop: async () => {
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'playbase-topo-'));
  return {
    env: { DATABASE_URL: '', PLAYBASE_DATA_DIR: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** How many meta documents of the game a PostgreSQL store holds (both stages). */
export async function metaDocumentsOf(at: Place, apiKey: string): Promise<number> {
  const client = new pg.Client({ connectionString: at.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM nosql_documents WHERE game_id = $1 AND starts_with(collection, 'meta.')",
      [apiKey],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}
