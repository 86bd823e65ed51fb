// Split mode: the auth role in one process, config and nosql roles in others, sharing one PostgreSQL schema.
// Stopping the auth process: JWTs keep working (checked locally against the cached JWKS), access tokens do not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'split-admin@playbase.test', password: 'split-password-1' };
const OWNER = { username: 'split-owner@playbase.test', password: 'owner-password-1' };

// Processes on the embedded store cannot share one data folder: split mode needs PostgreSQL.
describe.skipIf(!TEST_DATABASE_URL)(
  'split mode: auth, config and nosql in three processes (PostgreSQL)',
  () => {
    let db: Awaited<ReturnType<typeof sharedPostgres>>;
    let dataDir: string;
    let auth: Running;
    let config: Running;
    let nosql: Running;
    let apiKey: string;
    let jwt: string;
    let token: string;

    async function get(
      url: string,
      headers: Record<string, string> = {},
    ): Promise<[number, Record<string, unknown>]> {
      const res = await fetch(url, { headers });
      return [res.status, (await res.json()) as Record<string, unknown>];
    }

    async function send(url: string, method: string, headers: Record<string, string>, body: unknown) {
      const res = await fetch(url, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return [res.status, (await res.json()) as Record<string, unknown>] as const;
    }

    async function login(who: typeof ADMIN): Promise<string> {
      const [status, body] = await get(`${auth.url}/restv2/auth/user`, {
        authorization: basic(who.username, who.password),
      });
      expect(status).toBe(200);
      return body['X-SVCAccessToken'] as string;
    }

    beforeAll(async () => {
      db = await sharedPostgres(TEST_DATABASE_URL as string);
      dataDir = mkdtempSync(join(tmpdir(), 'playbase-split-'));
      const env = {
        DATABASE_URL: db.url,
        PLAYBASE_DATA_DIR: dataDir,
        PLAYBASE_ADMIN_USERNAME: ADMIN.username,
        PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
      };
      auth = spawnPlaybase({ ...env, PORT: String(await freePort()), PLAYBASE_ROLES: 'auth' });
      await waitReady(auth.url, 30_000);
      const remote = { ...env, PLAYBASE_AUTH_URL: auth.url };
      config = spawnPlaybase({ ...remote, PORT: String(await freePort()), PLAYBASE_ROLES: 'config' });
      nosql = spawnPlaybase({ ...remote, PORT: String(await freePort()), PLAYBASE_ROLES: 'nosql' });
      await Promise.all([waitReady(config.url, 30_000), waitReady(nosql.url, 30_000)]);

      const admin = { 'x-svcaccesstoken': await login(ADMIN) };
      expect(
        (await send(`${auth.url}/restv2/auth/users`, 'POST', admin, { ...OWNER, country: 'FR' }))[0],
      ).toBe(201);
      token = await login(OWNER);
      // Game creation is a config route: the config process asks the auth process about the token.
      const [status, game] = await send(
        `${config.url}/restv2/games`,
        'POST',
        { 'x-svcaccesstoken': token },
        {
          name: 'split game',
        },
      );
      expect(status).toBe(201);
      apiKey = game.apiKey as string;
      const [jwtStatus, issued] = await get(`${auth.url}/restv2/auth/game/${apiKey}/jwt`, {
        'x-svcaccesstoken': token,
      });
      expect(jwtStatus).toBe(200);
      jwt = issued['X-SVC-JWT'] as string;
    }, 120_000);

    afterAll(async () => {
      await stopAll([auth, config, nosql].filter(Boolean));
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const endpoints = () => `${config.url}/restv2/game/${apiKey}/endpoints`;
    const collections = () => `${nosql.url}/live/restv2/game/${apiKey}/mongo/collections`;

    it('auth up: config takes the access token (checked remotely) and the JWT', async () => {
      const [byToken, body] = await get(endpoints(), { 'x-svcaccesstoken': token });
      expect([byToken, body.liveNosql]).toEqual([200, `${config.url}/live`]);
      expect((await get(endpoints(), { 'x-svc-jwt': jwt }))[0]).toBe(200);
    });

    it('auth up: a token logged out at the auth process → refused by config on the next request', async () => {
      const other = await login(OWNER);
      expect((await get(endpoints(), { 'x-svcaccesstoken': other }))[0]).toBe(200);
      const res = await fetch(`${auth.url}/restv2/auth/user`, {
        method: 'DELETE',
        headers: { 'x-svcaccesstoken': other },
      });
      expect(res.status).toBe(200);
      const [status, body] = await get(endpoints(), { 'x-svcaccesstoken': other });
      expect([status, body.code]).toEqual([401, 'TOKEN_INVALID']);
    });

    it('nosql role → JWT 200; access token and Basic 401 CREDENTIAL_NOT_ACCEPTED', async () => {
      const [ok, list] = await get(collections(), { 'x-svc-jwt': jwt });
      expect(ok).toBe(200);
      expect(Array.isArray(list)).toBe(true);
      const [byToken, tokenBody] = await get(collections(), { 'x-svcaccesstoken': token });
      expect([byToken, tokenBody.code]).toEqual([401, 'CREDENTIAL_NOT_ACCEPTED']);
      const [byBasic, basicBody] = await get(collections(), {
        authorization: basic(OWNER.username, OWNER.password),
      });
      expect([byBasic, basicBody.code]).toEqual([401, 'CREDENTIAL_NOT_ACCEPTED']);
    });

    it('auth process stopped → JWT still works on config and nosql; access token 503 AUTH_SERVER_UNAVAILABLE', async () => {
      auth.child.kill('SIGTERM');
      expect(await auth.exited).toBe(0);
      await expect(fetch(`${auth.url}/healthz`)).rejects.toThrow();

      expect((await get(endpoints(), { 'x-svc-jwt': jwt }))[0]).toBe(200);
      expect((await get(collections(), { 'x-svc-jwt': jwt }))[0]).toBe(200);
      const [status, body] = await get(endpoints(), { 'x-svcaccesstoken': token });
      expect([status, body.code]).toEqual([503, 'AUTH_SERVER_UNAVAILABLE']);
      // A forged JWT is still told apart without the auth server.
      const [h, p] = jwt.split('.');
      const [forged, forgedBody] = await get(collections(), { 'x-svc-jwt': `${h}.${p}.AAAA` });
      expect([forged, forgedBody.code]).toEqual([401, 'JWT_INVALID']);
    });
  },
);
