// Limits of the nosql routes: 4 MB bodies, nesting depth, 4 MB find and aggregate answers, the 10 s statement
// timeout.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateDbError } from '../../src/nosql/db-errors.js';
import { createServer } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { openStore } from '../../src/store/db.js';
import { ADMIN, basic, startTestServer, TEST_DATABASE_URL } from '../harness.js';
import { probeHealth } from '../health-until.js';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('bodies', () => {
  it('body over 4 MB → 413 BODY_TOO_LARGE, nothing stored', async () => {
    const res = await w.call('POST', 'preview', 'collection/player/insert', {
      big: 'x'.repeat(4 * 1024 * 1024 + 10),
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'BODY_TOO_LARGE' });
    expect(await w.ok('POST', 'preview', 'collection/player/count', {})).toEqual({ count: 0 });
  });

  it('body of 3.9 MB → stored and read back whole', async () => {
    const big = randomBytes(2_900_000).toString('base64');
    const [doc] = await w.ok<Array<{ _id: unknown }>>('POST', 'preview', 'collection/player/insert', { big });
    const found = await w.ok<Array<{ big: string }>>('POST', 'preview', 'collection/player/find', {
      query: { _id: doc!._id },
    });
    expect(found[0]!.big).toBe(big);
    await w.ok('POST', 'preview', 'collection/player/remove', { query: { _id: doc!._id } });
  });

  it('document nested 100 levels → stored; 101 levels → 400 NOSQL_NESTING_TOO_DEEP', async () => {
    expect((await w.call('POST', 'preview', 'collection/challengeInstance/insert', nested(99))).status).toBe(
      200,
    );
    const res = await w.call('POST', 'preview', 'collection/challengeInstance/insert', nested(101));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_NESTING_TOO_DEEP' });
    const deep = `{"query": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const deepQuery = await w.call('POST', 'preview', 'collection/challengeInstance/find', deep);
    expect(deepQuery.status).toBe(400);
  });

  it('numbers beyond double range → 400; beyond 2^53 without $numberLong → kept as a double', async () => {
    const inf = await w.call('POST', 'preview', 'collection/challengeInstance/insert', '{"n": 1e400}');
    expect(inf.status).toBe(400);
    const [d] = await w.ok<Array<{ n: number }>>(
      'POST',
      'preview',
      'collection/challengeInstance/insert',
      '{"n": 123456789012345678901234567890}',
    );
    expect(d!.n).toBe(1.2345678901234568e29);
  });
});

describe('answers (4 MB cap)', () => {
  // The answer is built whole under the cap before it is sent (it used to be streamed, chunked): one past
  // 4 MB must be refused with a status, and a status can only be chosen before the first byte.
  it('find of 10,000 documents → one JSON array with every document, and its Content-Length', async () => {
    const docs = Array.from({ length: 10_000 }, (_, i) => ({ _id: i, pad: 'p'.repeat(50) }));
    await w.ok('POST', 'preview', 'collection/externalAuthentication/insert', docs);
    const res = await w.call('POST', 'preview', 'collection/externalAuthentication/find', {
      sort: { _id: 1 },
    });
    expect(res.status).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.json).toEqual(docs);
  });

  describe('a collection holding 4.5 MB of documents', () => {
    const pad = 'x'.repeat(1000);
    beforeAll(async () => {
      // 4,500 documents of about 1 KB each, in bodies under the 4 MB body limit.
      for (let from = 0; from < 4500; from += 1500) {
        const docs = Array.from({ length: 1500 }, (_, i) => ({ _id: from + i, pad }));
        await w.ok('POST', 'preview', 'collection/challengeInstance/insert', docs);
      }
    });

    it('find of every document → 400 NOSQL_RESPONSE_TOO_LARGE naming the limit, nothing else sent', async () => {
      const res = await w.call('POST', 'preview', 'collection/challengeInstance/find', { sort: { _id: 1 } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        message: expect.stringContaining('4194304 bytes (4 MB)'),
        code: 'NOSQL_RESPONSE_TOO_LARGE',
        requestId: expect.any(String),
      });
      const unsorted = await w.call('POST', 'preview', 'collection/challengeInstance/find', {});
      expect(unsorted.status).toBe(400);
    });

    it('aggregate passing every document through → 400 NOSQL_RESPONSE_TOO_LARGE', async () => {
      const res = await w.call('POST', 'preview', 'collection/challengeInstance/aggregate', [{ $match: {} }]);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'NOSQL_RESPONSE_TOO_LARGE' });
    });

    it('find of 3,000 of them (3 MB), or of every one with fewer fields → answered whole', async () => {
      const some = await w.call('POST', 'preview', 'collection/challengeInstance/find', { limit: 3000 });
      expect(some.status).toBe(200);
      expect((some.json as unknown[]).length).toBe(3000);
      const ids = await w.call('POST', 'preview', 'collection/challengeInstance/find', {
        query: { pad },
        fields: { _id: 1 },
      });
      expect(ids.status).toBe(200);
      expect((ids.json as unknown[]).length).toBe(4500);
    });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('statement timeout (PostgreSQL)', () => {
  it('a database error 57014 → QUERY_TIMEOUT 503 naming the limit in seconds', async () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, statement_timeout: 100, max: 1 });
    const err = await pool.query('SELECT pg_sleep(1)').catch((e: unknown) => e);
    await pool.end();
    const mapped = (await translateDbError(err, pool, undefined, 10_000)) as { status: number; code: string };
    expect(mapped).toMatchObject({
      status: 503,
      code: 'QUERY_TIMEOUT',
      message: 'Query cancelled after 10 s',
    });
  });

  it('a find running past the timeout → 503 QUERY_TIMEOUT, and the server keeps answering', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const store = await openStore({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: '',
      statementTimeoutMs: 200,
      schema,
    });
    const settings = loadSettings({
      PORT: '0',
      LOG_LEVEL: 'silent',
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_STATEMENT_TIMEOUT_MS: '200',
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    });
    const server = await createServer(settings, { store });
    try {
      const game = await server.app.inject({
        method: 'POST',
        url: '/restv2/games',
        headers: { authorization: basic(ADMIN.username, ADMIN.password) },
        payload: { name: 'slow' },
      });
      const apiKey = (game.json() as { apiKey: string }).apiKey;
      // Seeded without the short timeout; enough rows, each of 256 characters that the regular expression below
      // scans to the end (it never matches), that the find takes several times 0.2 s on a quiet machine.
      const seeder = new pg.Client({
        connectionString: TEST_DATABASE_URL,
        options: `-c search_path=${schema}`,
      });
      await seeder.connect();
      await seeder.query(
        `INSERT INTO nosql_documents SELECT $1, 'preview', 'player', i::text, jsonb_build_object('v', i % 977, 'w', repeat(md5(i::text), 8))
         FROM generate_series(1, 200000) AS i`,
        [apiKey],
      );
      await seeder.end();
      const jwt = await server.app.inject({
        method: 'GET',
        url: `/restv2/auth/game/${apiKey}/jwt`,
        headers: { authorization: basic(ADMIN.username, ADMIN.password) },
      });
      const headers = { 'x-svc-jwt': (jwt.json() as { 'X-SVC-JWT': string })['X-SVC-JWT'] };
      const url = `/preview/restv2/game/${apiKey}/mongo/collection/player`;
      const slow = await server.app.inject({
        method: 'POST',
        url: `${url}/find`,
        headers,
        payload: { query: { w: { $regex: '(1|2|3)+x$' } }, sort: { w: -1, v: 1 } },
      });
      expect(slow.statusCode).toBe(503);
      expect(slow.json()).toMatchObject({ code: 'QUERY_TIMEOUT', message: 'Query cancelled after 0.2 s' });
      const quick = await server.app.inject({
        method: 'POST',
        url: `${url}/find`,
        headers,
        payload: { limit: 1 },
      });
      expect(quick.statusCode).toBe(200);
    } finally {
      await server.close();
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});

describe.skipIf(TEST_DATABASE_URL)('statement limit (embedded store)', () => {
  it('a find running past the limit → 503 QUERY_TIMEOUT while /healthz answers within 1 s, then finds answer', {
    timeout: 120_000,
  }, async () => {
    // Half a second: the find below takes several seconds even on a quiet machine (ten regular expressions
    // over 200,000 rows), so it surely passes the limit, while every other statement stays far inside it.
    const server = await startTestServer({
      PLAYBASE_STATEMENT_TIMEOUT_MS: '500',
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    });
    try {
      const url = await server.listen();
      const auth = { authorization: server.adminBasic, 'content-type': 'application/json' };
      const game = await fetch(`${url}/restv2/games`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'slow' }),
      });
      const { apiKey } = (await game.json()) as { apiKey: string };
      // Seeded on a session that lifts the limit for itself, as PostgreSQL's SET statement_timeout does.
      const seeder = await server.store.pool.connect();
      try {
        await seeder.query('SET statement_timeout = 0');
        for (let from = 1; from <= 200_000; from += 5_000) {
          await seeder.query(
            `INSERT INTO nosql_documents SELECT $1, 'preview', 'player', i::text, jsonb_build_object('v', i % 977, 'w', repeat(md5(i::text), 8))
             FROM generate_series($2::int, $2::int + 4999) AS i`,
            [apiKey, from],
          );
        }
        await seeder.query('RESET statement_timeout');
      } finally {
        seeder.release();
      }
      const jwt = await fetch(`${url}/restv2/auth/game/${apiKey}/jwt`, { headers: auth });
      const headers = {
        'x-svc-jwt': ((await jwt.json()) as { 'X-SVC-JWT': string })['X-SVC-JWT'],
        'content-type': 'application/json',
      };
      const find = (body: unknown) =>
        fetch(`${url}/preview/restv2/game/${apiKey}/mongo/collection/player/find`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        });
      const patterns = ['a', 'b', 'c', 'd', 'e', 'f', '0', '1', '2', '3'].map((c) => ({
        w: { $regex: `^(${c}|b|c)+.*(1|2|3)+$` },
      }));
      const slow = find({ query: { $or: patterns }, sort: { w: -1, v: 1 } });
      const probe = await probeHealth(url, slow);
      const res = await slow;
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        code: 'QUERY_TIMEOUT',
        message: 'Query cancelled after 0.5 s',
      });
      expect(probe.n).toBeGreaterThan(3);
      expect(probe.longest).toBeLessThan(1000);
      const quick = await find({ query: { v: 5 }, limit: 1 });
      expect(quick.status).toBe(200);
      expect(await quick.json()).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
