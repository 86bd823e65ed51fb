// The embedded store's statement limit: PGlite runs in a worker that is ended and reopened past the limit.
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/query/filter.js';
import { idKey, storedText } from '../../src/query/values.js';
import { readTextBatches } from '../../src/store/document-reads.js';
import { insertDocuments } from '../../src/store/documents.js';
import { startTestServer, storeKind } from '../harness.js';
import { probeHealth } from '../health-until.js';

// PostgreSQL cancels statements itself (statement_timeout): see test/nosql/limits.test.ts.
describe.skipIf(storeKind === 'postgres')('statement limit (embedded store)', () => {
  it('a statement past the limit → 57014 while /healthz answers within 1 s; committed data kept, open transaction gone', async () => {
    const server = await startTestServer({ PLAYBASE_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      await server.listen();
      const { pool } = server.store;
      await pool.query('CREATE TABLE kept (v int)');
      await pool.query('INSERT INTO kept VALUES (1)');
      const client = await pool.connect();
      let failure: unknown;
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO kept VALUES (2)');
        // PGlite runs a statement to its end: on the server's own thread this sleep stalled every request.
        const slow = client.query('SELECT pg_sleep(20)').catch((e: unknown) => e);
        const probe = await probeHealth(server.url, slow);
        failure = await slow;
        expect(probe.n).toBeGreaterThan(3);
        expect(probe.longest).toBeLessThan(1000);
      } finally {
        client.release();
      }
      expect(failure).toMatchObject({ code: '57014' });
      const { rows } = await pool.query('SELECT v FROM kept ORDER BY v');
      expect(rows).toEqual([{ v: 1 }]);
    } finally {
      await server.close();
    }
  });

  it('reads on cached plans, then a worker ended past the limit → the same reads answer exactly on the new session (which holds none of their statements)', async () => {
    const server = await startTestServer({ PLAYBASE_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      const { pool } = server.store;
      const scope = { game: 'limitgame1', stage: 'preview' as const, collection: 'c' };
      const docs = Array.from({ length: 30 }, (_, i) => ({ _id: `d${i}`, n: i % 3 }));
      await insertDocuments(pool, scope, {
        ids: docs.map((d) => idKey(d._id)),
        texts: docs.map((d) => storedText(d)),
      });
      const find = async () => {
        const out: string[] = [];
        const plan = { filter: parseFilter({ n: 1 }), sort: [], skip: 0, limit: 100 };
        for await (const texts of readTextBatches(pool, scope, plan)) for (const t of texts) out.push(t);
        return out.length;
      };
      for (let round = 0; round < 4; round++) expect(await find()).toBe(10);
      const named = await pool.query(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'pb\\_r\\_%'",
      );
      expect(named.rows).toEqual([{ n: 1 }]);
      await expect(pool.query('SELECT pg_sleep(20)')).rejects.toMatchObject({ code: '57014' });
      for (let round = 0; round < 4; round++) expect(await find()).toBe(10);
    } finally {
      await server.close();
    }
  });

  it('SET statement_timeout on the session (index builds) → a longer statement runs to its end; RESET → the default limit again', async () => {
    const server = await startTestServer({ PLAYBASE_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      const client = await server.store.pool.connect();
      try {
        await client.query('SET statement_timeout = 5000');
        await expect(client.query('SELECT pg_sleep(1.5) AS slept')).resolves.toMatchObject({ rowCount: 1 });
        await client.query('RESET statement_timeout');
        await expect(client.query('SELECT pg_sleep(1.5)')).rejects.toMatchObject({ code: '57014' });
      } finally {
        client.release(true);
      }
      // The restart forgot the session's limit along with the session.
      await expect(server.store.pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await server.close();
    }
  });

  it('a worker ended past the limit → LISTEN subscribers get a gap, then notifications again', async () => {
    const server = await startTestServer({ PLAYBASE_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      const { store } = server;
      const heard: string[] = [];
      let gaps = 0;
      const subscription = await store.listen(
        'embedded_limit_test',
        (payload) => heard.push(payload),
        () => gaps++,
      );
      await store.pool.query("SELECT pg_notify('embedded_limit_test', 'before')");
      await expect.poll(() => heard).toEqual(['before']);
      gaps = 0;

      const err = await store.pool.query('SELECT pg_sleep(20)').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '57014' });
      expect(subscription.isLive()).toBe(false);
      await expect.poll(() => subscription.isLive(), { timeout: 20_000 }).toBe(true);
      expect(gaps).toBeGreaterThanOrEqual(1);

      await store.pool.query("SELECT pg_notify('embedded_limit_test', 'after')");
      await expect.poll(() => heard).toEqual(['before', 'after']);
      await subscription.close();
    } finally {
      await server.close();
    }
  });

  it('a regular expression PGlite fails to compile → an error instead of a hang or an empty answer; the store answers after', async () => {
    const server = await startTestServer({ PLAYBASE_STATEMENT_TIMEOUT_MS: '5000' });
    try {
      const { pool } = server.store;
      await pool.query('CREATE TABLE texts (s text)');
      await pool.query("INSERT INTO texts VALUES ('aaa'), ('bbb')");
      // PGlite loses the "too complex" error of this pattern: the simple protocol got no ReadyForQuery (pg
      // waited forever), the extended one an empty result; the session then misbehaves (issue 20, finding 3).
      const pattern = '(((a{100}){100}){100})';
      const simple = await pool.query(`SELECT s FROM texts WHERE s ~ '${pattern}'`).catch((e: unknown) => e);
      expect(simple).toMatchObject({ code: '57P01' });
      const extended = await pool
        .query('SELECT s FROM texts WHERE s ~ $1', [pattern])
        .catch((e: unknown) => e);
      expect(extended).toMatchObject({ code: '57P01' });
      const { rows } = await pool.query("SELECT s FROM texts WHERE s ~ '^a' ORDER BY s");
      expect(rows).toEqual([{ s: 'aaa' }]);
    } finally {
      await server.close();
    }
  });
});
