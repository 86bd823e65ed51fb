import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { DataDirLockedError } from '../../src/store/lock.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { freshStore, storeKind, TEST_DATABASE_URL } from '../harness.js';

describe('migrations', () => {
  it('fresh store → every migration recorded; a second run applies nothing', async () => {
    const fresh = await freshStore();
    try {
      const again = await migrate(fresh.store.pool);
      expect(again).toEqual([]);
      const { rows } = await fresh.store.pool.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(listMigrations().map((m) => m.version));
    } finally {
      await fresh.store.close();
      await fresh.drop();
    }
  });

  it.skipIf(storeKind === 'postgres')(
    'empty PGlite folder → migrations run, reopen → nothing to do',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'playbase-mig-'));
      try {
        let store = await openStore({ dataDir: dir, statementTimeoutMs: 10_000 });
        expect(await migrate(store.pool)).toEqual(listMigrations().map((m) => m.name));
        await store.close();
        store = await openStore({ dataDir: dir, statementTimeoutMs: 10_000 });
        expect(await migrate(store.pool)).toEqual([]);
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(storeKind === 'postgres')(
    'second open of a locked PGlite folder → DataDirLockedError naming the folder',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'playbase-lock-'));
      const store = await openStore({ dataDir: dir, statementTimeoutMs: 10_000 });
      try {
        await expect(openStore({ dataDir: dir, statementTimeoutMs: 10_000 })).rejects.toThrow(
          DataDirLockedError,
        );
        await expect(openStore({ dataDir: dir, statementTimeoutMs: 10_000 })).rejects.toThrow(dir);
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(!TEST_DATABASE_URL)(
    'five processes migrating one PostgreSQL schema at once → each migration applied exactly once',
    async () => {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const stores = await Promise.all(
        Array.from({ length: 5 }, () =>
          openStore({
            databaseUrl: TEST_DATABASE_URL,
            dataDir: '',
            statementTimeoutMs: 10_000,
            schema,
            poolSize: 2,
          }),
        ),
      );
      try {
        const results = await Promise.all(stores.map((s) => migrate(s.pool)));
        const applied = results.flat();
        expect(applied.sort()).toEqual(
          listMigrations()
            .map((m) => m.name)
            .sort(),
        );
        const { rows } = await stores[0]!.pool.query('SELECT count(*)::int AS n FROM schema_migrations');
        expect(rows[0].n).toBe(listMigrations().length);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      }
    },
  );
});
