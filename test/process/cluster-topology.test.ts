// Runtime clusters with real processes (docs/topology.md): a control process (auth + config) on its own store, a
// nosql process with PLAYBASE_CLUSTER=a on another (two PGlite folders, or two PostgreSQL schemas). The cluster
// serves a game's runtime requests and JWT finds from its replica, and goes on after the control process stops,
// across its own restart.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'topology-admin@playbase.test', password: 'topology-password-1' };
const OWNER = { username: 'topology-owner@playbase.test', password: 'owner-password-1' };
const SECRET = randomBytes(24).toString('hex');
const CLUSTERS = JSON.stringify({
  a: { liveNosql: 'http://a.example/live', previewNosql: 'http://a.example/preview' },
});

type Answer = [number, Record<string, unknown>];

async function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return [res.status, (await res.json()) as Record<string, unknown>];
}

async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('runtime clusters: a control process and a cluster process on two stores', () => {
  const stores: { drop(): Promise<void> }[] = [];
  let control: Running;
  let cluster: Running;
  let clusterEnv: Record<string, string>;
  let apiKey: string;
  let secret: string;
  let jwt: string;

  /** A store of its own: a PGlite folder, or a PostgreSQL schema. */
  async function ownStore(): Promise<Record<string, string>> {
    const dataDir = mkdtempSync(join(tmpdir(), 'playbase-topology-'));
    const db = TEST_DATABASE_URL ? await sharedPostgres(TEST_DATABASE_URL) : undefined;
    stores.push({
      async drop() {
        await db?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    });
    return { PLAYBASE_DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}) };
  }

  const runtime = (stage: string, name: string, body: Record<string, unknown>) =>
    send(
      `${cluster.url}/${stage}/rs/server/${encodeURIComponent(secret)}/${name}`,
      'POST',
      {},
      {
        '@class': `.${name}`,
        ...body,
      },
    );
  const collections = () =>
    send(`${cluster.url}/preview/restv2/game/${apiKey}/mongo/collections`, 'GET', {
      'x-svc-jwt': jwt,
    });

  beforeAll(async () => {
    const common = {
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_CLUSTERS: CLUSTERS,
      PLAYBASE_CLUSTER_SECRET: SECRET,
      PLAYBASE_COMPUTE_THREADS: '0',
      LOG_LEVEL: 'warn',
    };
    control = spawnPlaybase({
      ...common,
      ...(await ownStore()),
      PORT: String(await freePort()),
      PLAYBASE_ROLES: 'auth,config',
    });
    await waitReady(control.url, 60_000);
    clusterEnv = {
      ...common,
      ...(await ownStore()),
      PORT: String(await freePort()),
      PLAYBASE_ROLES: 'nosql',
      PLAYBASE_CLUSTER: 'a',
      PLAYBASE_AUTH_URL: control.url,
    };
    cluster = spawnPlaybase(clusterEnv);
    await waitReady(cluster.url, 60_000);

    const admin = { authorization: basic(ADMIN.username, ADMIN.password) };
    expect(
      (await send(`${control.url}/restv2/auth/users`, 'POST', admin, { ...OWNER, country: 'FR' }))[0],
    ).toBe(201);
    const [, login] = await send(`${control.url}/restv2/auth/user`, 'GET', {
      authorization: basic(OWNER.username, OWNER.password),
    });
    const owner = { 'x-svcaccesstoken': login['X-SVCAccessToken'] as string };
    const [created, game] = await send(`${control.url}/restv2/games`, 'POST', owner, {
      name: 'topology',
      cluster: 'a',
    });
    expect(created).toBe(201);
    apiKey = game.apiKey as string;
    const config = `${control.url}/restv2/game/${apiKey}/config`;
    expect((await send(config, 'PUT', owner, { '~credentials': [{ name: 'server' }] }))[0]).toBe(200);
    const [, reset] = await send(`${config}/~credentials/server/resetSecret`, 'POST', owner);
    secret = reset.secret as string;
    const [, issued] = await send(`${control.url}/restv2/auth/game/${apiKey}/jwt`, 'GET', owner);
    jwt = issued['X-SVC-JWT'] as string;
  }, 180_000);

  afterAll(async () => {
    await stopAll([control, cluster].filter((p) => p && p.child.exitCode === null));
    for (const store of stores) await store.drop();
  });

  it('the cluster serves the game within 1 s: runtime requests with its credential, finds with a JWT', async () => {
    await within(1000, 'runtime', async () => {
      const [status] = await runtime('preview', 'RegistrationRequest', {
        userName: 'neo',
        password: 'neo-password',
        displayName: 'Neo',
      });
      return status === 200;
    });
    await within(1000, 'JWT', async () => (await collections())[0] === 200);
  });

  it('control process stopped, then the cluster restarted → the cluster still serves both', async () => {
    control.child.kill('SIGTERM');
    expect(await control.exited).toBe(0);
    const serving = async () => {
      expect((await collections())[0]).toBe(200);
      const [status, body] = await runtime('preview', 'AuthenticationRequest', {
        userName: 'neo',
        password: 'neo-password',
      });
      expect([status, body['@class']]).toEqual([200, '.AuthenticationResponse']);
    };
    await serving();
    cluster.child.kill('SIGTERM');
    expect(await cluster.exited).toBe(0);
    cluster = spawnPlaybase(clusterEnv);
    await waitReady(cluster.url, 60_000);
    await serving();
  });
});
