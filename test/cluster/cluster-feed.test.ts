// Runtime clusters (docs/topology.md): a control server (auth + config) on one store, a cluster's nosql server
// (PLAYBASE_CLUSTER=a) on another, fed by the control server's change feed. Configuration, credentials and
// revocations reach the cluster within a second; the cluster keeps serving with the control server stopped, and
// after its own restart in that state.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { openStore, type Store } from '../../src/store/db.js';
import { addCollaborator, createUser, issueJwt, jwtHeader, tokenHeader, type User } from '../auth/helpers.js';
import {
  ADMIN,
  basic,
  freshStore,
  startTestServer,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestServer,
} from '../harness.js';

type Fresh = Awaited<ReturnType<typeof freshStore>>;
// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
type Json = any;

const SECRET = `cluster-secret-${randomBytes(16).toString('hex')}`;
const CLUSTERS = JSON.stringify({
  a: { liveNosql: 'http://a.example/live', previewNosql: 'http://a.example/preview' },
  b: { liveNosql: 'http://b.example/live', previewNosql: 'http://b.example/preview' },
});
const CONFIG = {
  '~runningTotals': [],
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: 'A player scored',
      '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' }],
    },
  ],
};
const TOTAL = {
  shortCode: 'BEST',
  name: 'Best score',
  event: { '@ref': '/~events/score' },
  collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
};

function env(extra: Record<string, string>): Record<string, string> {
  return {
    PORT: '0',
    LOG_LEVEL: process.env.PLAYBASE_TEST_LOG_LEVEL ?? 'silent',
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_CLUSTERS: CLUSTERS,
    PLAYBASE_COMPUTE_THREADS: '0',
    PLAYBASE_REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}`,
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...extra,
  };
}

/** A server on an open store (closing the server closes the store; the data stays for a restart). */
async function startOn(store: Store, dataDir: string, vars: Record<string, string>): Promise<TestServer> {
  const settings = loadSettings(env({ PLAYBASE_DATA_DIR: dataDir || '/nonexistent', ...vars }));
  const server = await createServer(settings, { store });
  await server.listen();
  return Object.assign(server, { settings, adminBasic: basic(ADMIN.username, ADMIN.password) }) as TestServer;
}

/** The store of `fresh` opened again (after its server closed it). */
function reopen(fresh: Fresh): Promise<Store> {
  return TEST_DATABASE_URL
    ? openStore({
        databaseUrl: TEST_DATABASE_URL,
        dataDir: '',
        statementTimeoutMs: 10_000,
        schema: fresh.schema,
      })
    : openStore({ dataDir: fresh.dataDir, statementTimeoutMs: 10_000 });
}

/** Polls `check` until it holds; fails past `ms` (never a fixed sleep). Returns the time it took. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function inject(
  server: Server,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return server.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function must(res: LightMyRequestResponse, what: string): Promise<Json> {
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

describe('runtime clusters: configuration and revocations reach a cluster replica', () => {
  let controlStore: Fresh;
  let clusterStore: Fresh;
  let control: TestServer;
  let cluster: TestServer;
  let owner: User;
  let apiKey: string;
  let otherKey: string;
  let secret: string;
  let ownerJwt: string;

  const clusterVars = () => ({
    PLAYBASE_ROLES: 'nosql',
    PLAYBASE_CLUSTER: 'a',
    PLAYBASE_CLUSTER_SECRET: SECRET,
    PLAYBASE_AUTH_URL: control.url,
  });
  const ownerCall = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    inject(control, method, url, tokenHeader(owner.token), body);
  const rs = (stage: string, name: string, body: Record<string, unknown>) =>
    inject(
      cluster,
      'POST',
      `/${stage}/rs/server/${encodeURIComponent(secret)}/${name}`,
      {},
      {
        '@class': `.${name}`,
        ...body,
      },
    );
  const collections = async (stage: string, jwt = ownerJwt, key = apiKey) =>
    inject(cluster, 'GET', `/${stage}/restv2/game/${key}/mongo/collections`, jwtHeader(jwt));
  const lists = async (stage: string, name: string) => {
    const res = await collections(stage);
    return res.statusCode === 200 && (res.json() as Json[]).some((c) => c.name === name);
  };

  beforeAll(async () => {
    controlStore = await freshStore();
    clusterStore = await freshStore();
    control = await startOn(controlStore.store, controlStore.dataDir, {
      PLAYBASE_ROLES: 'auth,config',
      PLAYBASE_CLUSTER_SECRET: SECRET,
    });
    cluster = await startOn(clusterStore.store, clusterStore.dataDir, clusterVars());
    owner = await createUser(control, `owner-${randomBytes(4).toString('hex')}@cluster.test`);
    apiKey = (await must(await ownerCall('POST', '/restv2/games', { name: 'On a', cluster: 'a' }), 'game'))
      .apiKey;
    otherKey = (await must(await ownerCall('POST', '/restv2/games', { name: 'On b', cluster: 'b' }), 'game'))
      .apiKey;
    await must(
      await ownerCall('PUT', `/restv2/game/${apiKey}/config`, {
        ...CONFIG,
        '~credentials': [{ name: 'server' }],
      }),
      'config',
    );
    secret = (
      await must(
        await ownerCall('POST', `/restv2/game/${apiKey}/config/~credentials/server/resetSecret`),
        'secret',
      )
    ).secret;
    ownerJwt = await issueJwt(control, owner, apiKey);
  }, 120_000);

  afterAll(async () => {
    await cluster?.close().catch(() => {});
    await control?.close().catch(() => {});
    await controlStore?.drop();
    await clusterStore?.drop();
  });

  it('the game, its credentials and the signing key reach the cluster within 1 s: runtime requests and finds work', async () => {
    await within(
      1000,
      'runtime credential',
      async () =>
        (
          await rs('preview', 'RegistrationRequest', {
            userName: 'alice',
            password: 'alice-password',
            displayName: 'Alice',
          })
        ).statusCode === 200,
    );
    await within(1000, 'JWT on the cluster', async () => (await collections('preview')).statusCode === 200);
  });

  it('a configuration change and a publish → served on the cluster within 1 s', async () => {
    expect(await lists('preview', 'BEST-runningTotal')).toBe(false);
    await must(
      await ownerCall('PUT', `/restv2/game/${apiKey}/config`, {
        ...CONFIG,
        '~runningTotals': [TOTAL],
        '~credentials': [{ name: 'server' }],
      }),
      'config change',
    );
    await within(1000, 'preview change', () => lists('preview', 'BEST-runningTotal'));
    expect(await lists('live', 'BEST-runningTotal')).toBe(false);
    const { id } = await must(
      await ownerCall('POST', `/restv2/game/${apiKey}/admin/snapshots`, { description: 'cluster' }),
      'snapshot',
    );
    await must(await ownerCall('POST', `/restv2/game/${apiKey}/admin/snapshots/${id}/publish`), 'publish');
    await within(1000, 'publish', () => lists('live', 'BEST-runningTotal'));
    const registered = await within(
      1000,
      'live runtime',
      async () =>
        (
          await rs('live', 'RegistrationRequest', {
            userName: 'bob',
            password: 'bob-password',
            displayName: 'Bob',
          })
        ).statusCode === 200,
    );
    expect(registered).toBeLessThan(1000);
  });

  it('a game of another cluster → 404 GAME_ON_OTHER_CLUSTER naming it', async () => {
    const jwt = await issueJwt(control, owner, otherKey);
    let res: LightMyRequestResponse | undefined;
    await within(1000, 'other game known', async () => {
      res = await collections('live', jwt, otherKey);
      return res.statusCode === 404 && res.json().code === 'GAME_ON_OTHER_CLUSTER';
    });
    expect(res?.json().message).toContain('cluster b');
  });

  it('a collaborator removed, an account disabled on the control side → refused on the cluster within 1 s', async () => {
    const carol = await createUser(control, `carol-${randomBytes(4).toString('hex')}@cluster.test`);
    const dave = await createUser(control, `dave-${randomBytes(4).toString('hex')}@cluster.test`);
    await addCollaborator(control, owner, apiKey, carol.username, ['Developer']);
    await addCollaborator(control, owner, apiKey, dave.username, ['Developer']);
    const carolJwt = await issueJwt(control, carol, apiKey);
    const daveJwt = await issueJwt(control, dave, apiKey);
    await within(1000, 'collaborators known', async () => {
      const [c, d] = await Promise.all([collections('live', carolJwt), collections('live', daveJwt)]);
      return c.statusCode === 200 && d.statusCode === 200;
    });
    await must(
      await ownerCall('DELETE', `/restv2/auth/game/${apiKey}/collaborators/${carol.username}`),
      'remove',
    );
    await within(1000, 'removal', async () => (await collections('live', carolJwt)).statusCode === 403);
    const admin = { authorization: control.adminBasic };
    await must(
      await inject(control, 'PUT', `/restv2/auth/users/${dave.username}`, admin, { disabled: true }),
      'disable',
    );
    await within(1000, 'disabled', async () => (await collections('live', daveJwt)).statusCode === 401);
    expect((await collections('live')).statusCode).toBe(200);
  });

  it('the feed: 401 without or with a wrong secret, 400 on a bad cursor or wait, 404 where it is off', async () => {
    const feed = (query: string, headers: Record<string, string>) =>
      inject(control, 'GET', `/restv2/internal/clusters/a/changes${query}`, headers);
    const bearer = (s: string) => ({ authorization: `Bearer ${s}` });
    for (const headers of [
      {},
      bearer(`${SECRET}x`),
      tokenHeader(owner.token),
      { authorization: control.adminBasic },
    ]) {
      const res = await feed('', headers);
      expect([res.statusCode, res.json().code]).toEqual([401, 'CLUSTER_SECRET_INVALID']);
    }
    const whole = await feed('?after=0', bearer(SECRET));
    expect(whole.statusCode).toBe(200);
    expect(whole.json().games.map((g: Json) => g.apiKey)).toEqual(expect.arrayContaining([apiKey, otherKey]));
    expect(JSON.stringify(whole.json())).not.toContain('scrypt');
    for (const query of ['?after=abc', '?after=-1', '?wait=99999', '?wait=soon']) {
      expect((await feed(query, bearer(SECRET))).statusCode).toBe(400);
    }
    const plain = await startTestServer();
    try {
      const off = await inject(plain, 'GET', '/restv2/internal/clusters/local/changes', bearer(SECRET));
      expect([off.statusCode, off.json().code]).toEqual([404, 'CLUSTER_FEED_OFF']);
    } finally {
      await plain.close();
    }
  });

  it('control server stopped → the cluster keeps serving finds and runtime requests, also after its own restart', async () => {
    await control.close();
    const serving = async () => {
      expect((await collections('live')).statusCode).toBe(200);
      const find = await inject(
        cluster,
        'POST',
        `/live/restv2/game/${apiKey}/mongo/collection/BEST-runningTotal/find`,
        jwtHeader(ownerJwt),
        {},
      );
      expect([find.statusCode, find.json()]).toEqual([200, []]);
      const login = await rs('preview', 'AuthenticationRequest', {
        userName: 'alice',
        password: 'alice-password',
      });
      expect([login.statusCode, login.json()['@class']]).toEqual([200, '.AuthenticationResponse']);
    };
    await serving();
    await cluster.close();
    cluster = await startOn(await reopen(clusterStore), clusterStore.dataDir, clusterVars());
    await serving();
  });
});
