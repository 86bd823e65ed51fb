// A server process whose PostgreSQL backends are terminated during writes (issue 20, finding 2): it lives on,
// requests answer 200 or 503, and every acknowledged write is there afterwards. Only the backends of this test's
// own process are terminated, picked by a unique application_name: the database is shared with other tests.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'outage-admin@playbase.test', password: 'outage-password-1' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Outcome {
  status: number;
  body: Record<string, unknown>;
}

describe.skipIf(!TEST_DATABASE_URL)('a server process whose PostgreSQL backends are terminated', () => {
  const applicationName = `pb_outage_${randomBytes(6).toString('hex')}`;
  let db: Awaited<ReturnType<typeof sharedPostgres>>;
  let server: Running;
  let exitCode: number | null | undefined;
  const inspector = new pg.Client({ connectionString: TEST_DATABASE_URL });

  beforeAll(async () => {
    db = await sharedPostgres(TEST_DATABASE_URL as string);
    const url = new URL(db.url);
    url.searchParams.set('application_name', applicationName);
    server = spawnPlaybase({
      DATABASE_URL: url.toString(),
      PORT: String(await freePort()),
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
    });
    void server.exited.then((code) => {
      exitCode = code;
    });
    await waitReady(server.url, 30_000);
    await inspector.connect();
  }, 60_000);

  afterAll(async () => {
    await inspector.end().catch(() => {});
    if (server) await stopAll([server]);
    await db?.drop();
  });

  async function terminateOwnBackends(): Promise<number> {
    const { rows } = await inspector.query<{ ok: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    return rows.filter((r) => r.ok).length;
  }

  async function gameAndJwt(): Promise<{ apiKey: string; jwt: string }> {
    const auth = { authorization: basic(ADMIN.username, ADMIN.password) };
    const game = await fetch(`${server.url}/restv2/games`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'outage' }),
    });
    expect(game.status).toBe(201);
    const { apiKey } = (await game.json()) as { apiKey: string };
    const issued = await fetch(`${server.url}/restv2/auth/game/${apiKey}/jwt`, { headers: auth });
    return { apiKey, jwt: ((await issued.json()) as Record<string, string>)['X-SVC-JWT'] as string };
  }

  it('terminations during concurrent inserts and updates → the process lives, 200 or 503 NOT_READY, every acknowledged write present', async () => {
    const { apiKey, jwt } = await gameAndJwt();
    const base = `${server.url}/preview/restv2/game/${apiKey}/mongo/collection/player`;
    /** Status 0: no answer at all (the connection was closed: the process died). */
    const post = async (path: string, body: unknown): Promise<Outcome> => {
      try {
        const res = await fetch(`${base}/${path}`, {
          method: 'POST',
          headers: { 'x-svc-jwt': jwt, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      } catch (e) {
        await sleep(50);
        return { status: 0, body: { error: String(e) } };
      }
    };

    const acknowledged: string[] = [];
    const increments = new Map<string, { acked: number; unsure: number }>();
    const failures: Outcome[] = [];
    let running = true;
    /** One writer: inserts its own documents and increments its own counter (a transaction), until stopped. */
    const writer = async (w: number) => {
      const counter = `counter-${w}`;
      const tally = { acked: 0, unsure: 0 };
      increments.set(counter, tally);
      for (let i = 0; running; i++) {
        const id = `w${w}-${i}`;
        const inserted = await post('insert', { _id: id, w, i });
        if (inserted.status === 200) acknowledged.push(id);
        else failures.push(inserted);
        const updated = await post('update', {
          query: { _id: counter },
          update: { $inc: { n: 1 } },
          upsert: true,
        });
        if (updated.status === 200) tally.acked++;
        else {
          tally.unsure++; // a commit whose answer was lost may still have counted
          failures.push(updated);
        }
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));

    let terminated = 0;
    await sleep(500);
    for (let round = 0; round < 6; round++) {
      terminated += await terminateOwnBackends();
      await sleep(400);
    }
    await sleep(500);
    running = false;
    await Promise.all(writers);

    expect(terminated).toBeGreaterThan(0);
    expect(exitCode).toBeUndefined();
    expect(failures.filter((f) => f.status === 0)).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const f of failures) {
      expect(f.status).toBe(503);
      expect(['NOT_READY', 'QUERY_TIMEOUT']).toContain(f.body.code);
      expect(f.body).toEqual({
        message: expect.any(String),
        code: f.body.code,
        requestId: expect.any(String),
      });
    }

    await waitReady(server.url, 15_000);
    const found = await post('find', { query: {}, limit: 10000 });
    expect(found.status).toBe(200);
    const docs = found.body as unknown as Array<{ _id: string; n?: number }>;
    const present = new Set(docs.map((d) => d._id));
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    for (const [counter, tally] of increments) {
      const n = docs.find((d) => d._id === counter)?.n ?? 0;
      expect(n).toBeGreaterThanOrEqual(tally.acked);
      expect(n).toBeLessThanOrEqual(tally.acked + tally.unsure);
    }
    // The LISTEN connection (the auth cache's) came back on its own.
    await expect
      .poll(
        async () =>
          (
            await inspector.query(
              "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
              [applicationName],
            )
          ).rowCount,
        { timeout: 15_000, interval: 100 },
      )
      .toBeGreaterThan(0);
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
  }, 60_000);
});
