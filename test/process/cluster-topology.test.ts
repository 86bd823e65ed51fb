// The interface's topology with real processes: one auth+config process on the control store, two nosql processes
// each on its own cluster store (clusters a and b), Redis shared when there is one. Configuration, publishing and
// revocations reach the right cluster within a second; both clusters keep serving JWT and runtime traffic while
// the control process is stopped, and pick up revocations once it is back.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL, TEST_REDIS_URL } from '../harness.js';
import { freePort, type Running, spawnPlaybase, waitReady } from '../processes.js';
import { call, type Json, metaDocumentsOf, type Place, place, within } from './topology.test-util.js';

const ADMIN = { username: 'topo-admin@playbase.test', password: 'topo-password-1' };
const OWNER = { username: 'topo-owner@playbase.test', password: 'owner-password-1' };
const HELPER = { username: 'topo-helper@playbase.test', password: 'helper-password-1' };
const SECRET = 'topology-cluster-secret-0123456789abcdef';
const REDIS_PREFIX = `topo-${randomBytes(6).toString('hex')}`;
const TYPES = [{ shortCode: 'Score', name: 'Scores', fields: [{ name: 'player', type: 'string' }] }];
const SWORD = { _id: 1, name: 'sword', level: 3 };
const SHIELD = { _id: 2, name: 'shield', level: { $numberLong: '9007199254740993' } };
/** How long a change may take to reach a cluster (the bound). */
const WITHIN_MS = 1000;

describe('topology: auth+config on the control store, nosql on two cluster stores', () => {
  const places: Place[] = [];
  const ports: Record<'control' | 'a' | 'b', number> = { control: 0, a: 0, b: 0 };
  let control: Running;
  let clusterA: Running;
  let clusterB: Running;
  let controlEnv: Record<string, string>;
  let admin: Record<string, string>;
  let owner: Record<string, string>;
  let gameA: string;
  let gameB: string;
  let secretA: string;

  const url = (port: number) => `http://127.0.0.1:${port}`;
  const shared = () => ({
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_CLUSTER_SECRET: SECRET,
    PLAYBASE_CLUSTERS: JSON.stringify({
      a: {
        liveNosql: `${url(ports.a)}/live`,
        previewNosql: `${url(ports.a)}/preview`,
        internalUrl: url(ports.a),
      },
      b: {
        liveNosql: `${url(ports.b)}/live`,
        previewNosql: `${url(ports.b)}/preview`,
        internalUrl: url(ports.b),
      },
    }),
    LOG_LEVEL: 'warn',
    PLAYBASE_REDIS_KEY_PREFIX: REDIS_PREFIX,
    // The RateLimit-* headers tell the tightest limit: per game out of the way, they tell the user's (shared) one.
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '1000000',
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
  });
  const startCluster = (name: 'a' | 'b', at: Place) =>
    spawnPlaybase({
      ...shared(),
      ...at.env,
      PORT: String(ports[name]),
      PUBLIC_URL: url(ports[name]),
      PLAYBASE_ROLES: 'nosql',
      PLAYBASE_CLUSTER: name,
      PLAYBASE_AUTH_URL: url(ports.control),
      PLAYBASE_CONFIG_URL: url(ports.control),
    });
  const jwtFor = async (who: typeof OWNER, apiKey: string) => {
    const res = await call(`${control.url}/restv2/auth/game/${apiKey}/jwt`, 'GET', {
      authorization: basic(who.username, who.password),
    });
    expect(res.status).toBe(200);
    return res.body['X-SVC-JWT'] as string;
  };
  const find = (cluster: Running, apiKey: string, jwt: string, stage = 'preview') =>
    call(
      `${cluster.url}/${stage}/restv2/game/${apiKey}/mongo/collection/player/find`,
      'POST',
      { 'x-svc-jwt': jwt },
      {},
    );
  const rs = (cluster: Running, stage: string, name: string, body: Json, secret = secretA) =>
    call(
      `${cluster.url}/${stage}/rs/server/${encodeURIComponent(secret)}/${name}`,
      'POST',
      {},
      { '@class': `.${name}`, ...body },
    );

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) places.push(await place());
    ports.control = await freePort();
    ports.a = await freePort();
    ports.b = await freePort();
    controlEnv = {
      ...shared(),
      ...places[0]!.env,
      PORT: String(ports.control),
      PLAYBASE_ROLES: 'auth,config',
    };
    control = spawnPlaybase(controlEnv);
    clusterA = startCluster('a', places[1]!);
    clusterB = startCluster('b', places[2]!);
    // A cluster is ready once its replica holds the whole state: after the control process answers its feed.
    await Promise.all([control, clusterA, clusterB].map((p) => waitReady(p.url, 150_000))).catch(
      async (err) => {
        const states = await Promise.all(
          [control, clusterA, clusterB].map(async (p) => {
            const ready = await fetch(`${p.url}/readyz`).then((r) => r.text(), String);
            return `${p.url}: ${ready}\n${p.output().slice(-3000)}`;
          }),
        );
        throw new Error(`${err}\n${states.join('\n---\n')}`);
      },
    );

    const login = async (who: typeof OWNER) => {
      const res = await call(`${control.url}/restv2/auth/user`, 'GET', {
        authorization: basic(who.username, who.password),
      });
      expect(res.status).toBe(200);
      return { 'x-svcaccesstoken': res.body['X-SVCAccessToken'] as string };
    };
    admin = await login(ADMIN);
    for (const who of [OWNER, HELPER]) {
      expect(
        (await call(`${control.url}/restv2/auth/users`, 'POST', admin, { ...who, country: 'FR' })).status,
      ).toBe(201);
    }
    owner = await login(OWNER);
    gameA = (await call(`${control.url}/restv2/games`, 'POST', owner, { name: 'on a', cluster: 'a' })).body
      .apiKey;
    gameB = (await call(`${control.url}/restv2/games`, 'POST', owner, { name: 'on b', cluster: 'b' })).body
      .apiKey;
    const put = await call(`${control.url}/restv2/game/${gameA}/config`, 'PUT', owner, {
      '~credentials': [{ name: 'server' }],
    });
    expect(put.status).toBe(200);
    const reset = await call(
      `${control.url}/restv2/game/${gameA}/config/~credentials/server/resetSecret`,
      'POST',
      owner,
    );
    secretA = reset.body.secret;
  }, 240_000);

  afterAll(async () => {
    for (const p of [control, clusterA, clusterB]) p?.child.kill('SIGKILL');
    await Promise.all(places.map((p) => p.drop()));
  });

  it('discovery → each game names its cluster URLs', async () => {
    const res = await call(`${control.url}/restv2/game/${gameA}/endpoints`, 'GET', owner);
    expect(res.body).toMatchObject({
      liveNosql: `${url(ports.a)}/live`,
      previewNosql: `${url(ports.a)}/preview`,
    });
  });

  it('a game on cluster a → served there within 1 s; on cluster b → 404 naming cluster a', async () => {
    const jwt = await jwtFor(OWNER, gameA);
    await within(
      'game a on cluster a',
      WITHIN_MS * 5,
      async () => (await find(clusterA, gameA, jwt)).status === 200,
    );
    // Cluster b checks the JWT first: it answers once the signing key has reached it too.
    let elsewhere = await find(clusterB, gameA, jwt);
    await within('cluster b knows the key', WITHIN_MS * 5, async () => {
      elsewhere = await find(clusterB, gameA, jwt);
      return elsewhere.status !== 401;
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ code: 'GAME_ON_OTHER_CLUSTER' });
    expect(elsewhere.body.message).toContain('cluster a');
  });

  it('runtime credentials of game a work on cluster a (Preview), and a registered player is found there', async () => {
    await within('credential on cluster a', WITHIN_MS, async () => {
      const r = await rs(clusterA, 'preview', 'RegistrationRequest', {
        userName: 'p1',
        password: 'pw-p1',
        displayName: 'P1',
      });
      return r.status === 200;
    });
    const found = await find(clusterA, gameA, await jwtFor(OWNER, gameA));
    expect(found.body.map((d: Json) => d.userName)).toContain('p1');
  });

  it('player management on cluster a (its own database): find p1, ban → DETAILS: LOCKED, unban, export, erase', async () => {
    const jwt = { 'x-svc-jwt': await jwtFor(OWNER, gameA) };
    const players = `${clusterA.url}/preview/restv2/game/${gameA}/players`;
    const found = await call(`${players}?q=p1&by=userName`, 'GET', jwt);
    expect(found.status).toBe(200);
    const id = found.body.players[0].id as string;
    const auth = () =>
      rs(clusterA, 'preview', 'AuthenticationRequest', { userName: 'p1', password: 'pw-p1' });
    expect((await call(`${players}/${id}/ban`, 'POST', jwt, { reason: 'test' })).status).toBe(200);
    expect((await auth()).body.error).toEqual({ DETAILS: 'LOCKED' });
    expect((await call(`${players}/${id}/unban`, 'POST', jwt)).status).toBe(200);
    expect((await auth()).body.userId).toBe(id);
    const exported = await call(`${players}/${id}/export`, 'GET', jwt);
    expect(exported.body).toMatchObject({ playerId: id, player: { userName: 'p1' } });
    const erased = await call(`${players}/${id}`, 'DELETE', jwt);
    expect([erased.status, erased.body.player]).toEqual([200, 1]);
    expect((await call(`${players}/${id}`, 'GET', jwt)).status).toBe(404);
    // The leaderboard routes answer there too (this game has none).
    expect(
      (await call(`${clusterA.url}/preview/restv2/game/${gameA}/leaderboards`, 'GET', jwt)).body,
    ).toEqual([]);
    // Cluster b refuses game a's players as it refuses its documents.
    const elsewhere = await call(`${clusterB.url}/preview/restv2/game/${gameA}/players?q=p1`, 'GET', jwt);
    expect([elsewhere.status, elsewhere.body.code]).toEqual([404, 'GAME_ON_OTHER_CLUSTER']);
    // Register p1 again: the later cases find a player named p1.
    expect(
      (await rs(clusterA, 'preview', 'RegistrationRequest', { userName: 'p1', password: 'pw-p1' })).status,
    ).toBe(200);
  });

  it('a publish → Live on cluster a runs the snapshot within 1 s; cluster b never learns game a', async () => {
    const snap = await call(`${control.url}/restv2/game/${gameA}/admin/snapshots`, 'POST', owner, {
      description: 'v1',
    });
    expect(snap.status).toBe(201);
    const published = performance.now();
    expect(
      (
        await call(
          `${control.url}/restv2/game/${gameA}/admin/snapshots/${snap.body.id}/publish`,
          'POST',
          owner,
        )
      ).status,
    ).toBe(200);
    await within('Live on cluster a', WITHIN_MS, async () => {
      const r = await rs(clusterA, 'live', 'RegistrationRequest', {
        userName: 'l1',
        password: 'pw-l1',
        displayName: 'L1',
      });
      return r.status === 200;
    });
    expect(performance.now() - published).toBeLessThan(WITHIN_MS * 2);
    expect(
      (await rs(clusterB, 'live', 'AuthenticationRequest', { userName: 'l1', password: 'pw-l1' })).status,
    ).not.toBe(200);
  });

  it('a cluster process: /readyz → ready, following the feed, lag 0', async () => {
    const res = await call(`${clusterA.url}/readyz`, 'GET', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ready',
      replica: { cluster: 'a', feed: 'following', caughtUp: true, appliedAt: expect.any(String), lagMs: 0 },
    });
  });

  it('meta collections made in Preview on cluster a → in the snapshot → Live on cluster a within 1 s after publish; a revert restores Preview there', async () => {
    const jwt = { 'x-svc-jwt': await jwtFor(OWNER, gameA) };
    const mongo = (stage: string) => `${clusterA.url}/${stage}/restv2/game/${gameA}/mongo`;
    const nosql = async (path: string, body: unknown) => {
      const res = await call(`${mongo('preview')}${path}`, 'POST', jwt, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const findMeta = async (stage: string) => {
      const res = await call(`${mongo(stage)}/collection/meta.items/find`, 'POST', jwt, { sort: { _id: 1 } });
      return res.status === 200 ? (res.body as unknown as Json[]) : [];
    };
    await nosql('/collection/items/meta', {});
    await nosql('/collection/meta.items/insert', [SWORD, SHIELD]);
    await nosql('/collection/meta.items/index/byName?unique=true', { name: 1 });
    const preview = await findMeta('preview');
    expect(preview).toHaveLength(2);

    const snaps = `${control.url}/restv2/game/${gameA}/admin/snapshots`;
    const snap = await call(snaps, 'POST', owner, { description: 'with meta' });
    expect(snap.status, JSON.stringify(snap.body)).toBe(201);
    const full = await call(`${snaps}/${snap.body.id}?full=true`, 'GET', owner);
    expect(full.body.meta).toEqual([{ collection: 'meta.items', documents: 2, indexes: ['byName'] }]);
    expect((await call(`${snaps}/${snap.body.id}/publish`, 'POST', owner)).status).toBe(200);
    await within('Live meta on cluster a', WITHIN_MS, async () => (await findMeta('live')).length === 2);
    expect(await findMeta('live')).toEqual(preview);
    expect(JSON.stringify(await findMeta('live'))).toContain('9007199254740993');
    await within('Live meta index on cluster a', WITHIN_MS * 5, async () => {
      const res = await call(`${mongo('live')}/collection/meta.items/indices`, 'GET', jwt);
      return JSON.stringify(res.body).includes('byName');
    });
    // Game b (cluster b) has no meta collections; game a is not served there.
    const jwtB = { 'x-svc-jwt': await jwtFor(OWNER, gameB) };
    const onB = await call(
      `${clusterB.url}/live/restv2/game/${gameB}/mongo/collection/meta.items/find`,
      'POST',
      jwtB,
      {},
    );
    expect(onB.status === 404 || (onB.status === 200 && (onB.body as unknown as Json[]).length === 0)).toBe(
      true,
    );

    // On PostgreSQL the stores can be read: game a's meta documents are on cluster a's only.
    if (TEST_DATABASE_URL) {
      const counts = await Promise.all(places.map((at) => metaDocumentsOf(at, gameA)));
      expect(counts).toEqual([0, 4, 0]);
    }

    await call(`${mongo('preview')}/collection/meta.items/remove`, 'POST', jwt, { query: { _id: 1 } });
    expect(await findMeta('preview')).toHaveLength(1);
    const reverted = await call(`${snaps}/revert/to/${snap.body.id}`, 'POST', owner);
    expect(reverted.status, JSON.stringify(reverted.body)).toBeLessThan(300);
    await within(
      'Preview meta restored on cluster a',
      WITHIN_MS,
      async () => (await findMeta('preview')).length === 2,
    );
    expect(await findMeta('preview')).toEqual(preview);
    expect(await findMeta('live')).toEqual(preview);
  });

  it('exports and their downloads, the data service and the shared limits → served by cluster a', async () => {
    const jwt = { 'x-svc-jwt': await jwtFor(OWNER, gameA) };
    for (const t of TYPES) {
      const res = await call(`${control.url}/restv2/game/${gameA}/config/~indexedTypes`, 'POST', owner, t);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    const item = `${clusterA.url}/preview/restv2/game/${gameA}/data/Score/s1`;
    await within(
      'data type on cluster a',
      WITHIN_MS,
      async () => (await call(item, 'PUT', jwt, { data: { player: 'ann' } })).status === 200,
    );
    expect((await call(item, 'GET', jwt)).body).toMatchObject({
      type: 'Score',
      id: 's1',
      data: { player: 'ann' },
    });

    const download = async (kind: string) => {
      const made = await call(`${clusterA.url}/preview/restv2/game/${gameA}/${kind}/export`, 'GET', jwt);
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      expect(made.body.url.startsWith(`${clusterA.url}/`)).toBe(true);
      const file = await fetch(made.body.url);
      expect(file.status).toBe(200);
      return gunzipSync(Buffer.from(await file.arrayBuffer())).toString('utf8');
    };
    expect(await download('mongo')).toContain('"p1"');
    expect(await download('data')).toContain('"ann"');

    // One user's budget, counted through the shared Redis: the points taken on cluster a are gone on cluster b.
    // Processes lease points in small blocks and report what they know (others' leases count as used), so b's
    // figure is read over a few calls, after 40 calls on a: alone, b would see only its own calls.
    if (TEST_REDIS_URL) {
      const jwtB = { 'x-svc-jwt': await jwtFor(OWNER, gameB) };
      const count = async (cluster: Running, apiKey: string, as: Record<string, string>) => {
        const res = await fetch(
          `${cluster.url}/preview/restv2/game/${apiKey}/mongo/collection/player/count`,
          {
            method: 'POST',
            headers: { ...as, 'content-type': 'application/json' },
            body: '{}',
          },
        );
        await res.text();
        return {
          limit: Number(res.headers.get('ratelimit-limit')),
          left: Number(res.headers.get('ratelimit-remaining')),
        };
      };
      // A minute window may turn during the burst (both counts start again): then it is taken again.
      let shared = false;
      for (let attempt = 0; attempt < 2 && !shared; attempt++) {
        for (let i = 0; i < 40; i++) await count(clusterA, gameA, jwt);
        const onB: { limit: number; left: number }[] = [];
        for (let i = 0; i < 10; i++) onB.push(await count(clusterB, gameB, jwtB));
        expect(onB[0]?.limit).toBe(300);
        shared = Math.min(...onB.map((c) => c.left)) <= 300 - 40;
      }
      expect(shared).toBe(true);
    }
  });

  it('control stopped → both clusters keep serving JWT finds and runtime requests, also after their own restart', async () => {
    const jwtA = await jwtFor(OWNER, gameA);
    const jwtB = await jwtFor(OWNER, gameB);
    await within(
      'game b on cluster b',
      WITHIN_MS * 5,
      async () => (await find(clusterB, gameB, jwtB)).status === 200,
    );
    control.child.kill('SIGTERM');
    await control.exited;
    expect((await find(clusterA, gameA, jwtA)).status).toBe(200);
    expect((await find(clusterB, gameB, jwtB)).status).toBe(200);
    expect(
      (await rs(clusterA, 'preview', 'AuthenticationRequest', { userName: 'p1', password: 'pw-p1' })).status,
    ).toBe(200);
    // Still ready (serving its last state); the feed is seen unreachable, and the lag grows.
    await within('cluster a sees the feed down', WITHIN_MS * 2, async () => {
      const res = await call(`${clusterA.url}/readyz`, 'GET', {});
      return res.status === 200 && res.body.replica.feed === 'unreachable';
    });
    clusterA.child.kill('SIGTERM');
    await clusterA.exited;
    clusterA = startCluster('a', places[1]!);
    await waitReady(clusterA.url, 60_000);
    const ready = await call(`${clusterA.url}/readyz`, 'GET', {});
    expect(ready.body.replica).toMatchObject({ feed: 'unreachable', caughtUp: false });
    expect(ready.body.replica.lagMs).toBeGreaterThan(0);
    expect((await find(clusterA, gameA, jwtA)).status).toBe(200);
    expect(
      (await rs(clusterA, 'preview', 'AuthenticationRequest', { userName: 'p1', password: 'pw-p1' })).status,
    ).toBe(200);
  }, 120_000);

  it('control back, a collaborator removed → refused on cluster a within 1 s', async () => {
    control = spawnPlaybase(controlEnv);
    await waitReady(control.url, 60_000);
    owner = {
      'x-svcaccesstoken': (
        await call(`${control.url}/restv2/auth/user`, 'GET', {
          authorization: basic(OWNER.username, OWNER.password),
        })
      ).body['X-SVCAccessToken'],
    };
    const added = await call(`${control.url}/restv2/auth/game/${gameA}/collaborators`, 'POST', owner, {
      email: HELPER.username,
      groupNames: ['Developer'],
    });
    expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
    const jwt = await jwtFor(HELPER, gameA);
    await within(
      'helper allowed on cluster a',
      WITHIN_MS,
      async () => (await find(clusterA, gameA, jwt)).status === 200,
    );
    const removed = await call(
      `${control.url}/restv2/auth/game/${gameA}/collaborators/${encodeURIComponent(HELPER.username)}`,
      'DELETE',
      owner,
    );
    expect(removed.status, JSON.stringify(removed.body)).toBeLessThan(300);
    await within(
      'helper refused on cluster a',
      WITHIN_MS,
      async () => (await find(clusterA, gameA, jwt)).status === 403,
    );
  }, 120_000);
});
