// A new embedded data folder is filled from the template of a fresh cluster (pglite-worker.ts) instead of running
// initdb: the first new folder writes the template, later ones load it; a damaged template is dropped.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgliteWorker, type PgliteWorkerStore } from './pglite-pool.js';

const work = mkdtempSync(join(tmpdir(), 'playbase-template-'));
const template = join(work, 'cache', 'pglite-datadir.tar');
const opened: PgliteWorkerStore[] = [];

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  rmSync(work, { recursive: true, force: true });
});

/** Opens the folder and answers its cluster's system identifier (initdb makes a new one for each cluster). */
async function clusterOf(folder: string): Promise<{ store: PgliteWorkerStore; id: string }> {
  // As openStore does: the data folder exists, its pgdata folder is PGlite's to make.
  mkdirSync(join(work, folder), { recursive: true });
  const store = openPgliteWorker(join(work, folder, 'pgdata'), 30_000, template);
  opened.push(store);
  const { rows } = await store.pool.query<{ id: string }>(
    'SELECT system_identifier::text AS id FROM pg_control_system()',
  );
  return { store, id: String(rows[0]?.id) };
}

describe('the embedded store from a fresh-cluster template', () => {
  let first = '';

  it('the first new folder runs initdb and writes the template; the next new folder is filled from it', async () => {
    const a = await clusterOf('a');
    first = a.id;
    expect(statSync(template).size).toBeGreaterThan(1_000_000);
    const b = await clusterOf('b');
    // The same cluster files: the same identifier. Each folder is still a store of its own.
    expect(b.id).toBe(first);
    await b.store.pool.query('CREATE TABLE only_in_b (n int)');
    await b.store.pool.query('INSERT INTO only_in_b VALUES (1)');
    expect((await b.store.pool.query('SELECT n FROM only_in_b')).rows).toEqual([{ n: 1 }]);
    const inA = await a.store.pool.query("SELECT to_regclass('only_in_b') AS t");
    expect(inA.rows[0]?.t).toBeNull();
  }, 120_000);

  it('a damaged template is removed, the folder made by initdb, and the template written again', async () => {
    writeFileSync(template, 'not a tar file');
    const c = await clusterOf('c');
    expect(c.id).not.toBe(first);
    await c.store.pool.query('CREATE TABLE works (n int)');
    expect(statSync(template).size).toBeGreaterThan(1_000_000);
    expect((await clusterOf('d')).id).toBe(c.id);
  }, 120_000);
});
