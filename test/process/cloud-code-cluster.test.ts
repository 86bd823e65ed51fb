// Cloud Code on a runtime cluster (docs/topology.md): scripts are written on the control process (auth+config,
// control store) and run on the nosql process of the game's cluster (its own store), where their writes, their
// script.log entries and their rollbacks land.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_REDIS_URL } from '../harness.js';
import { freePort, type Running, spawnPlaybase, waitReady } from '../processes.js';
import { call, type Json, type Place, place, within } from './topology.test-util.js';

const ADMIN = { username: 'cc-topo-admin@playbase.test', password: 'topo-password-1' };
const SECRET = 'cloud-code-cluster-secret-0123456789abcdef';
const CONFIG = {
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: 'cluster',
      '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' }],
    },
  ],
  '~credentials': [{ name: 'server' }],
};
const SCRIPT = [
  'var pid = Spark.getPlayer().getPlayerId();',
  'var c = Spark.runtimeCollection("state");',
  'var s = c.findOne({ _id: pid });',
  'c.update({ _id: pid }, { $inc: { plays: 1 } }, true, false);',
  'Spark.getLog().info("played");',
  'if (Spark.getData().SCORE < 0) throw new Error("negative");',
  'Spark.setScriptData("plays", s === null ? 1 : s.plays + 1);',
].join('\n');

describe('Cloud Code on a runtime cluster process', () => {
  const places: Place[] = [];
  let control: Running;
  let cluster: Running;
  let owner: Record<string, string>;
  let apiKey: string;
  let secret: string;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) places.push(await place());
    const ports = { control: await freePort(), a: await freePort() };
    const url = (port: number) => `http://127.0.0.1:${port}`;
    const shared = {
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_CLUSTER_SECRET: SECRET,
      PLAYBASE_CLUSTERS: JSON.stringify({
        a: {
          liveNosql: `${url(ports.a)}/live`,
          previewNosql: `${url(ports.a)}/preview`,
          internalUrl: url(ports.a),
        },
      }),
      LOG_LEVEL: 'warn',
      PLAYBASE_REDIS_KEY_PREFIX: `cc-topo-${randomBytes(6).toString('hex')}`,
      ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    };
    control = spawnPlaybase({
      ...shared,
      ...places[0]!.env,
      PORT: String(ports.control),
      PLAYBASE_ROLES: 'auth,config',
    });
    cluster = spawnPlaybase({
      ...shared,
      ...places[1]!.env,
      PORT: String(ports.a),
      PUBLIC_URL: url(ports.a),
      PLAYBASE_ROLES: 'nosql',
      PLAYBASE_CLUSTER: 'a',
      PLAYBASE_AUTH_URL: url(ports.control),
      PLAYBASE_CONFIG_URL: url(ports.control),
    });
    await Promise.all([control, cluster].map((p) => waitReady(p.url, 150_000)));
    const login = await call(`${control.url}/restv2/auth/user`, 'GET', {
      authorization: basic(ADMIN.username, ADMIN.password),
    });
    owner = { 'x-svcaccesstoken': login.body['X-SVCAccessToken'] as string };
    apiKey = (await call(`${control.url}/restv2/games`, 'POST', owner, { name: 'scripted', cluster: 'a' }))
      .body.apiKey;
    const config = `${control.url}/restv2/game/${apiKey}/config`;
    expect((await call(config, 'PUT', owner, CONFIG)).status).toBe(200);
    secret = (await call(`${config}/~credentials/server/resetSecret`, 'POST', owner)).body.secret;
    const put = await call(`${config}/~scripts/event/score`, 'PUT', owner, { script: SCRIPT });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }, 240_000);

  afterAll(async () => {
    for (const p of [control, cluster]) p?.child.kill('SIGKILL');
    await Promise.all(places.map((p) => p.drop()));
  });

  const rs = (name: string, body: Json) =>
    call(
      `${cluster.url}/preview/rs/server/${encodeURIComponent(secret)}/${name}`,
      'POST',
      {},
      {
        '@class': `.${name}`,
        ...body,
      },
    );

  it('a script written on the control process runs on the cluster, on its store', async () => {
    let playerId = '';
    await within('the credential on the cluster', 10_000, async () => {
      const r = await rs('RegistrationRequest', { userName: 'p1', password: 'pw-p1' });
      playerId = r.body.userId;
      return r.status === 200;
    });
    // The script reaches the cluster with the rest of the configuration.
    let answer: Json = {};
    await within('the script on the cluster', 10_000, async () => {
      answer = (await rs('LogEventRequest', { eventKey: 'score', playerId, SCORE: 1 })).body;
      return answer.scriptData !== undefined;
    });
    expect(answer.scriptData).toEqual({ plays: 1 });
    expect((await rs('LogEventRequest', { eventKey: 'score', playerId, SCORE: 1 })).body.scriptData).toEqual({
      plays: 2,
    });
    // A failing execution is rolled back on the cluster's store and answers its script.log entry.
    const failed = (await rs('LogEventRequest', { eventKey: 'score', playerId, SCORE: -1 })).body;
    expect(failed.error).toEqual({ SCRIPT: 'ERROR' });
    expect(failed.scriptErrorMessage).toMatch(/negative/);

    const jwt = await call(`${control.url}/restv2/auth/game/${apiKey}/jwt`, 'GET', {
      authorization: basic(ADMIN.username, ADMIN.password),
    });
    const find = (collection: string, body: Json) =>
      call(
        `${cluster.url}/preview/restv2/game/${apiKey}/mongo/collection/${collection}/find`,
        'POST',
        {
          'x-svc-jwt': jwt.body['X-SVC-JWT'] as string,
        },
        body,
      );
    // The cluster checks the JWT with the signing key the control process made: it reaches the cluster's
    // replica within a second or so.
    let state = await find('script.state', {});
    await within('the signing key on the cluster', 10_000, async () => {
      state = await find('script.state', {});
      return state.status !== 401;
    });
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body).toEqual([{ _id: playerId, plays: 2 }]);
    const logs = await find('script.log', { query: { script: 'event/score' }, limit: 10 });
    expect(logs.body.filter((d: Json) => d.log === 'played')).toHaveLength(3);
    const errors = await find('script.log', { query: { _id: { $oid: failed.scriptErrorId } } });
    const [entry] = errors.body as Json[];
    expect(entry).toMatchObject({ level: 'ERROR', error: 'ERROR', script: 'event/score' });
  }, 60_000);
});
