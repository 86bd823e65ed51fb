// Backup and restore of the whole store: a backup restored into a fresh store holds every table's rows exactly
// (row counts and a hash of each table's ordered rows, sequences too), and the refusals say what to do.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError, backupStore, restoreStore } from '../../src/store/backup.js';
import { openStore } from '../../src/store/db.js';
import { type ImportWorld, startImportWorld } from '../export/import-world.js';
import { storeKind, TEST_DATABASE_URL } from '../harness.js';

type Digest = Record<string, string>;

/** Every table of the connection's schema: row count and md5 of its rows in text order; every sequence's state. */
async function digest(db: pg.Pool | pg.Client): Promise<Digest> {
  const out: Digest = {};
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  for (const { name } of tables.rows) {
    const { rows } = await db.query<{ n: string; h: string }>(
      `SELECT count(*) AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS h FROM "${name}" t`,
    );
    out[name] = `${rows[0]?.n} rows ${rows[0]?.h}`;
  }
  const sequences = await db.query<{ name: string }>(
    'SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1',
  );
  for (const { name } of sequences.rows) {
    const { rows } = await db.query(`SELECT last_value, is_called FROM "${name}"`);
    out[`sequence ${name}`] = JSON.stringify(rows[0]);
  }
  return out;
}

/** A game with documents of every kind, data items, players and ranked leaderboard entries. */
async function populate(w: ImportWorld): Promise<void> {
  const { apiKey, secret } = await w.newGame('backed up');
  const jwt = await w.jwt(apiKey);
  const lines = [
    { collection: 'script.things', document: { _id: 1, n: { $numberLong: '9007199254740993' } } },
    { collection: 'meta.words', document: { _id: 'w', when: { $date: '2026-01-01T00:00:00Z' } } },
  ];
  const res = await w.post(
    'mongo',
    apiKey,
    jwt,
    lines.map((l) => JSON.stringify(l)).join('\n'),
    'application/x-ndjson',
  );
  expect(res.statusCode, res.body).toBe(200);
  const item = await w.call('PUT', `/preview/restv2/game/${apiKey}/data/Note/n1`, jwt, {
    data: { title: 't' },
    ttl: 600,
  });
  expect(item.statusCode).toBe(200);
  const rs = async (name: string, body: Record<string, unknown>) => {
    const r = await w.server.app.inject({
      method: 'POST',
      url: `/preview/rs/server/${encodeURIComponent(secret)}/${name}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ '@class': `.${name}`, ...body }),
    });
    expect(r.statusCode).toBe(200);
    return r.json();
  };
  for (const [i, time] of [7, 3, 5].entries()) {
    const { userId } = await rs('RegistrationRequest', {
      userName: `u${i}`,
      password: 'pw-123456',
      displayName: `U ${i}`,
    });
    await rs('LogEventRequest', { eventKey: 'race', playerId: userId, TIME: time, CAR: 'c' });
  }
}

function expectRefusal(promise: Promise<unknown>, message: RegExp) {
  return expect(promise).rejects.toSatisfy(
    (e: unknown) => e instanceof BackupError && message.test(e.message),
  );
}

const tables = (d: Digest) => Object.keys(d).filter((k) => !k.startsWith('sequence '));
const nonEmpty = (d: Digest, name: string) => !String(d[name]).startsWith('0 rows');

describe.runIf(storeKind === 'pglite')(
  'embedded store: backup with the server stopped, restore into a fresh folder',
  () => {
    let w: ImportWorld;
    let dataDir: string;
    let before: Digest;
    const work = mkdtempSync(join(tmpdir(), 'playbase-backup-test-'));
    const file = join(work, 'store.tar.gz');

    beforeAll(async () => {
      w = await startImportWorld();
      await populate(w);
      dataDir = w.server.settings.dataDir;
    }, 120_000);
    afterAll(async () => {
      rmSync(work, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(w.dataDir, { recursive: true, force: true });
    });

    it('while the server holds the data folder → backup and restore refuse, naming the server’s pid; no file is written', async () => {
      await expectRefusal(
        backupStore({ dataDir }, file),
        new RegExp(`in use by a running Playbase process \\(pid ${process.pid}\\): stop the server first`),
      );
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(work)).toEqual([]);
      writeFileSync(join(work, 'other.tar.gz'), Buffer.from([0x1f, 0x8b, 0]));
      await expectRefusal(
        restoreStore({ dataDir }, join(work, 'other.tar.gz'), { force: true }),
        /stop the server first/,
      );
      rmSync(join(work, 'other.tar.gz'));
    });

    it('server stopped → backup (mode 0600); restored into a fresh folder, every table’s rows and every sequence are equal', async () => {
      // Stop the server but keep its data folder.
      await w.server.app.close();
      await w.server.store.close();
      const source = await openStore({ dataDir, statementTimeoutMs: 10_000 });
      before = await digest(source.pool);
      await source.close();
      for (const name of [
        'accounts',
        'games',
        'nosql_documents',
        'nosql_collections',
        'data_items',
        'runtime_entries',
        'runtime_rank_buckets',
      ])
        expect(nonEmpty(before, name), name).toBe(true);
      const result = await backupStore({ dataDir }, file);
      expect(result).toEqual({ store: 'embedded', file, bytes: statSync(file).size });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const fresh = join(work, 'fresh');
      await restoreStore({ dataDir: fresh }, file);
      const restored = await openStore({ dataDir: fresh, statementTimeoutMs: 10_000 });
      try {
        const after = await digest(restored.pool);
        expect(tables(after).length).toBeGreaterThan(20);
        expect(after).toEqual(before);
      } finally {
        await restored.close();
      }
    });

    it('a folder that holds a store → refused unless --force, which replaces it; a file that exists → refused unless --force', async () => {
      const target = join(work, 'fresh');
      await expectRefusal(
        restoreStore({ dataDir: target }, file),
        /holds an embedded store already: .* --force/,
      );
      await restoreStore({ dataDir: target }, file, { force: true });
      expect(readdirSync(target).sort()).toEqual(['pgdata']);
      await expectRefusal(backupStore({ dataDir }, file), /exists already: .* --force/);
      expect((await backupStore({ dataDir }, file, { force: true })).bytes).toBeGreaterThan(0);
    });

    it('no store in the folder, a file that is not such a backup, or a missing file → refused, saying why', async () => {
      const empty = join(work, 'empty');
      mkdirSync(empty);
      await expectRefusal(
        backupStore({ dataDir: empty }, join(work, 'x.tar.gz')),
        /there is no embedded store in/,
      );
      const dump = join(work, 'dump.pgdump');
      writeFileSync(dump, 'PGDMP and more');
      await expectRefusal(
        restoreStore({ dataDir: join(work, 'r1') }, dump),
        /it is a pg_dump archive, which restores into PostgreSQL/,
      );
      await expectRefusal(
        restoreStore({ dataDir: join(work, 'r2') }, join(work, 'missing.tar.gz')),
        /does not exist/,
      );
    });
  },
);

describe.runIf(storeKind === 'postgres')(
  'PostgreSQL: pg_dump beside the running server, pg_restore into a fresh database',
  () => {
    let w: ImportWorld;
    let schema: string;
    const work = mkdtempSync(join(tmpdir(), 'playbase-backup-test-'));
    const file = join(work, 'store.pgdump');
    const database = `restore_${randomBytes(6).toString('hex')}`;
    const url = TEST_DATABASE_URL as string;
    const restoredUrl = () => {
      const u = new URL(url);
      u.pathname = `/${database}`;
      return u.toString();
    };
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };

    beforeAll(async () => {
      w = await startImportWorld();
      await populate(w);
      schema = (await w.server.store.pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]
        ?.s as string;
      await admin(`CREATE DATABASE ${database}`);
    }, 120_000);
    afterAll(async () => {
      await w?.close();
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      rmSync(work, { recursive: true, force: true });
    });

    async function restoredDigest(): Promise<Digest> {
      const store = await openStore({
        databaseUrl: restoredUrl(),
        dataDir: '',
        statementTimeoutMs: 10_000,
        schema,
        poolSize: 1,
      });
      try {
        return await digest(store.pool);
      } finally {
        await store.close();
      }
    }

    it('backup while the server runs → a pg_dump archive; restored, every table’s rows and every sequence are equal', async () => {
      const result = await backupStore({ databaseUrl: url, schema, dataDir: '' }, file);
      expect(result).toEqual({ store: 'postgres', file, bytes: statSync(file).size });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const head = Buffer.alloc(5);
      const fd = (await import('node:fs')).openSync(file, 'r');
      (await import('node:fs')).readSync(fd, head, 0, 5, 0);
      expect(head.toString('latin1')).toBe('PGDMP');
      await restoreStore({ databaseUrl: restoredUrl(), schema, dataDir: '' }, file);
      const before = await digest(w.server.store.pool);
      for (const name of [
        'accounts',
        'games',
        'nosql_documents',
        'data_items',
        'runtime_entries',
        'runtime_rank_buckets',
      ])
        expect(nonEmpty(before, name), name).toBe(true);
      const after = await restoredDigest();
      expect(tables(after).length).toBeGreaterThan(20);
      expect(after).toEqual(before);
    });

    it('a database that holds tables → refused unless --force, which replaces what the backup holds', async () => {
      const target = { databaseUrl: restoredUrl(), schema, dataDir: '' };
      await expectRefusal(
        restoreStore(target, file),
        /holds \d+ tables already: restore into an empty database, or pass --force/,
      );
      await restoreStore(target, file, { force: true });
      expect(await restoredDigest()).toEqual(await digest(w.server.store.pool));
    });

    it('pg_dump or pg_restore not on the PATH → refused naming the binary; not a pg_dump archive → refused', async () => {
      const noTools = { ...process.env, PATH: '/nonexistent' };
      const source = { databaseUrl: url, schema, dataDir: '' };
      await expectRefusal(
        backupStore(source, join(work, 'b.pgdump'), { env: noTools }),
        /pg_dump was not found on the PATH: install the PostgreSQL client tools/,
      );
      await expectRefusal(
        restoreStore(source, file, { force: true, env: noTools }),
        /pg_restore was not found on the PATH/,
      );
      expect(readdirSync(work)).toEqual(['store.pgdump']);
      const gz = join(work, 'embedded.tar.gz');
      writeFileSync(gz, Buffer.from([0x1f, 0x8b, 8, 0]));
      await expectRefusal(
        restoreStore(source, gz),
        /not a pg_dump archive \(custom format\): it looks like a backup of the embedded store/,
      );
    });
  },
);
