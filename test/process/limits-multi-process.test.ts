// Rate limits shared through Redis by three server processes on one PostgreSQL (issue: limits across processes).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL, TEST_REDIS_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'limits-admin@playbase.test', password: 'limits-password-1' };
const enabled = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, init);
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe.skipIf(!enabled)('limits shared by three processes (PostgreSQL + Redis)', () => {
  let db: Awaited<ReturnType<typeof sharedPostgres>>;
  const servers: Running[] = [];
  const prefix = `mp-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await sharedPostgres(TEST_DATABASE_URL as string);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL as string,
      PLAYBASE_REDIS_KEY_PREFIX: prefix,
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    };
    for (let i = 0; i < 3; i++) servers.push(spawnPlaybase({ ...env, PORT: String(await freePort()) }));
    await Promise.all(servers.map((s) => waitReady(s.url, 30_000)));
  }, 60_000);

  afterAll(async () => {
    await stopAll(servers);
    await db?.drop();
  });

  async function tokenFor(user: { username: string; password: string }): Promise<string> {
    const res = await call(`${servers[0]!.url}/restv2/auth/user`, {
      headers: { authorization: basic(user.username, user.password) },
    });
    expect(res.status).toBe(200);
    return (await json<Record<string, string>>(res))['X-SVCAccessToken'] as string;
  }

  /** A game owned by the administrator with `count` collaborators in the Developer group; their JWTs. */
  async function gameWithUsers(count: number): Promise<{ apiKey: string; jwts: string[] }> {
    const adminToken = await tokenFor(ADMIN);
    const headers = { 'x-svcaccesstoken': adminToken, 'content-type': 'application/json' };
    const game = await json<{ apiKey: string }>(
      await call(`${servers[1]!.url}/restv2/games`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'limits' }),
      }),
    );
    const jwts: string[] = [];
    for (let i = 0; i < count; i++) {
      const user = {
        username: `u${i}-${randomBytes(3).toString('hex')}@playbase.test`,
        password: 'user-password-1',
      };
      const created = await call(`${servers[2]!.url}/restv2/auth/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...user, country: 'GB' }),
      });
      expect(created.status).toBe(201);
      const added = await call(`${servers[0]!.url}/restv2/auth/game/${game.apiKey}/collaborators`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email: user.username, groupNames: ['Developer'] }),
      });
      expect(added.status).toBe(201);
      const jwt = await call(`${servers[1]!.url}/restv2/auth/game/${game.apiKey}/jwt`, {
        headers: { authorization: basic(user.username, user.password) },
      });
      jwts.push((await json<Record<string, string>>(jwt))['X-SVC-JWT'] as string);
    }
    return { apiKey: game.apiKey, jwts };
  }

  /** Fires `total` GETs of the game's endpoints, round-robin over processes and JWTs; returns the statuses. */
  async function burst(apiKey: string, jwts: string[], total: number): Promise<number[]> {
    const statuses: number[] = [];
    const batch = 50;
    for (let start = 0; start < total; start += batch) {
      const round = Array.from({ length: Math.min(batch, total - start) }, async (_, k) => {
        const i = start + k;
        const res = await call(`${servers[i % 3]!.url}/restv2/game/${apiKey}/endpoints`, {
          headers: { 'x-svc-jwt': jwts[i % jwts.length] as string },
        });
        if (res.status === 429) {
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(((await res.json()) as { code: string }).code).toBe('RATE_LIMITED');
        } else {
          await res.arrayBuffer();
        }
        expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
        statuses.push(res.status);
      });
      await Promise.all(round);
    }
    return statuses;
  }

  it('700 requests for one game over three processes and three users → exactly 600 not refused, the rest 429', async () => {
    const { apiKey, jwts } = await gameWithUsers(3);
    const statuses = await burst(apiKey, jwts, 700);
    const allowed = statuses.filter((s) => s !== 429).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    // Setting up counted 6 requests on the game already (3 collaborator additions, 3 JWTs issued).
    expect(allowed).toBe(600 - 6);
  }, 60_000);

  it('350 requests by one user over three processes → exactly 300 not refused', async () => {
    const { apiKey, jwts } = await gameWithUsers(1);
    const statuses = await burst(apiKey, jwts, 350);
    const allowed = statuses.filter((s) => s !== 429).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    // The user's JWT request counted once already.
    expect(allowed).toBe(300 - 1);
  }, 60_000);
});
