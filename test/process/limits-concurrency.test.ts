// At most 10 configuration writes of one user on one game in flight, across processes sharing Redis.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL, TEST_REDIS_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'slots-admin@playbase.test', password: 'slots-password-1' };

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'concurrent configuration writes across two processes',
  () => {
    let db: Awaited<ReturnType<typeof sharedPostgres>>;
    const servers: Running[] = [];

    beforeAll(async () => {
      db = await sharedPostgres(TEST_DATABASE_URL as string);
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL as string,
        PLAYBASE_REDIS_KEY_PREFIX: `slots-${randomBytes(4).toString('hex')}`,
        PLAYBASE_ADMIN_USERNAME: ADMIN.username,
        PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
      };
      for (let i = 0; i < 2; i++) servers.push(spawnPlaybase({ ...env, PORT: String(await freePort()) }));
      await Promise.all(servers.map((s) => waitReady(s.url)));
    }, 90_000);

    afterAll(async () => {
      await stopAll(servers);
      await db?.drop();
    });

    it('10 writes held open (game row locked) → the 11th answers 429 at once, GET still served; all slots free after', async () => {
      const login = await fetch(`${servers[0]!.url}/restv2/auth/user`, {
        headers: { authorization: basic(ADMIN.username, ADMIN.password) },
      });
      const token = ((await login.json()) as Record<string, string>)['X-SVCAccessToken'] as string;
      const headers = { 'x-svcaccesstoken': token, 'content-type': 'application/json' };
      const game = (await (
        await fetch(`${servers[1]!.url}/restv2/games`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'slots' }),
        })
      ).json()) as { apiKey: string };
      const eventsUrl = (i: number) => `${servers[i % 2]!.url}/restv2/game/${game.apiKey}/config/~events`;
      const createEvent = (i: number) =>
        fetch(eventsUrl(i), {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `E${i}`, shortCode: `e${i}`, description: 'held' }),
        });

      // Every configuration write locks its game's row: holding that lock keeps the writes in flight.
      const blocker = new pg.Client({ connectionString: db.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM games WHERE api_key = $1 FOR UPDATE', [game.apiKey]);
      const observer = new pg.Client({ connectionString: db.url });
      await observer.connect();
      try {
        const held = Array.from({ length: 10 }, (_, i) => createEvent(i));
        // Wait until all ten hold their slot, blocked on the row lock (polled from another connection: inside
        // the blocker's transaction pg_stat_activity is a frozen snapshot).
        const start = Date.now();
        for (;;) {
          const { rows } = await observer.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM games WHERE api_key%'`,
          );
          if ((rows[0]?.n ?? 0) >= 10 || Date.now() - start > 20_000) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const eleventhStart = Date.now();
        const eleventh = await createEvent(10);
        expect(eleventh.status).toBe(429);
        expect(Date.now() - eleventhStart).toBeLessThan(2000);
        const body = (await eleventh.json()) as { code: string };
        expect(body.code).toBe('TOO_MANY_CONCURRENT');
        expect(eleventh.headers.get('retry-after')).toMatch(/^\d+$/);

        const read = await fetch(`${servers[1]!.url}/restv2/game/${game.apiKey}/config/~events`, { headers });
        expect(read.status).toBe(200);

        await blocker.query('COMMIT');
        const statuses = await Promise.all(held.map(async (r) => (await r).status));
        expect(statuses).toEqual(Array(10).fill(201));
      } finally {
        await blocker.query('ROLLBACK').catch(() => {});
        await blocker.end();
      }
      // The slots were given back: another write goes through.
      expect((await createEvent(11)).status).toBe(201);
    }, 60_000);
  },
);
