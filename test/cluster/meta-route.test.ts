// GET /restv2/internal/clusters/{cluster}/games/{apiKey}/preview-meta on a runtime cluster's nosql server: the
// game's Preview meta collections (documents, collections, indexes) for a snapshot taken on the control side; only
// with the cluster secret (nothing said of a game without it), only for this cluster, 404 on any other server.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

const SECRET = `meta-route-secret-${randomBytes(16).toString('hex')}`;
const CLUSTERS = JSON.stringify({
  b: { liveNosql: 'http://b.example/live', previewNosql: 'http://b.example/preview' },
});
const path = (cluster: string, apiKey: string) =>
  `/restv2/internal/clusters/${cluster}/games/${apiKey}/preview-meta`;

describe('the Preview meta endpoint of a cluster', () => {
  let cluster: TestServer;
  const get = (url: string, headers: Record<string, string> = { authorization: `Bearer ${SECRET}` }) =>
    cluster.app.inject({ method: 'GET', url, headers });

  beforeAll(async () => {
    cluster = await startTestServer({
      PLAYBASE_ROLES: 'nosql',
      PLAYBASE_CLUSTER: 'local',
      PLAYBASE_CLUSTERS: CLUSTERS,
      PLAYBASE_CLUSTER_SECRET: SECRET,
      // No control server here: the replica loop retries in the background; the rows are written below.
      PLAYBASE_CONFIG_URL: 'http://127.0.0.1:9',
    });
    const db = cluster.store.pool;
    await db.query(`INSERT INTO accounts (username, password_hash) VALUES ('o@meta.test', '!')`);
    await db.query(
      `INSERT INTO games (api_key, name, cluster, owner) VALUES ('gHere', 'here', 'local', 'o@meta.test'),
       ('gThere', 'there', 'b', 'o@meta.test')`,
    );
    await db.query(
      `INSERT INTO nosql_collections (game_id, stage, collection, kind, created_at)
       VALUES ('gHere', 'preview', 'meta.items', 'meta', now())`,
    );
    await db.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES
       ('gHere', 'preview', 'meta.items', '1', '{"_id": 1, "level": {"$numberLong": "9007199254740993"}}'),
       ('gHere', 'live', 'meta.items', '2', '{"_id": 2}')`,
    );
    await db.query(
      `INSERT INTO nosql_indexes (game_id, stage, collection, name, keys, "unique", pg_name)
       VALUES ('gHere', 'preview', 'meta.items', 'byName', '[["name", 1], ["level", -1]]', true, 'meta_route_x1')`,
    );
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('with the secret → the Preview collections, documents (long values exact) and indexes; never Live', async () => {
    const res = await get(path('local', 'gHere'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      collections: ['meta.items'],
      documents: [
        { collection: 'meta.items', id: '1', doc: { _id: 1, level: { $numberLong: '9007199254740993' } } },
      ],
      indexes: [
        {
          collection: 'meta.items',
          name: 'byName',
          keys: [
            ['name', 1],
            ['level', -1],
          ],
          unique: true,
        },
      ],
    });
  });

  it('no secret, a wrong one, or an account credential → 401 CLUSTER_SECRET_INVALID, even for a game elsewhere', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer not-the-secret' },
      { authorization: `Basic ${Buffer.from(`o@meta.test:${SECRET}`).toString('base64')}` },
      { 'x-svc-jwt': 'eyJhbGciOiJFUzI1NiJ9.e30.x' },
    ]) {
      for (const game of ['gHere', 'gThere']) {
        const res = await get(path('local', game), headers);
        expect(res.statusCode).toBe(401);
        expect(res.json().code).toBe('CLUSTER_SECRET_INVALID');
      }
    }
  });

  it('another cluster named → 404 CLUSTER_NOT_THIS_ONE; a game of another cluster → 404 GAME_ON_OTHER_CLUSTER', async () => {
    const other = await get(path('b', 'gHere'));
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('CLUSTER_NOT_THIS_ONE');
    const elsewhere = await get(path('local', 'gThere'));
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'GAME_ON_OTHER_CLUSTER' });
  });

  it('over-long parameters → 414 with the error body; an unknown game → no meta collections', async () => {
    for (const url of [path('local', 'k'.repeat(129)), path('c'.repeat(129), 'gHere')]) {
      const res = await get(url);
      expect(res.statusCode).toBe(414);
      expect(res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    const unknown = await get(path('local', 'gNone'));
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({ collections: [], documents: [], indexes: [] });
  });

  it('a nosql server that is not a cluster replica → 404 CLUSTER_NOT_A_REPLICA', async () => {
    const plain = await startTestServer({ PLAYBASE_ROLES: 'nosql', PLAYBASE_CLUSTER_SECRET: SECRET });
    try {
      const res = await plain.app.inject({
        method: 'GET',
        url: path('local', 'gHere'),
        headers: { authorization: `Bearer ${SECRET}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('CLUSTER_NOT_A_REPLICA');
    } finally {
      await plain.close();
    }
  });
});

describe('a snapshot of a game on a runtime cluster that does not answer', () => {
  it('→ 503 CLUSTER_UNREACHABLE naming the cluster, and no snapshot written', async () => {
    const control = await startTestServer({
      PLAYBASE_ROLES: 'auth,config',
      PLAYBASE_CLUSTER_SECRET: SECRET,
      // Port 9 (discard): nothing listens, the connection is refused at once.
      PLAYBASE_CLUSTERS: JSON.stringify({
        a: {
          liveNosql: 'http://a/live',
          previewNosql: 'http://a/preview',
          internalUrl: 'http://127.0.0.1:9',
        },
      }),
    });
    try {
      const admin = { authorization: control.adminBasic, 'content-type': 'application/json' };
      const made = await control.app.inject({
        method: 'POST',
        url: '/restv2/games',
        headers: admin,
        payload: JSON.stringify({ name: 'far', cluster: 'a' }),
      });
      expect(made.statusCode, made.body).toBe(201);
      const snaps = `/restv2/game/${made.json().apiKey}/admin/snapshots`;
      const res = await control.app.inject({
        method: 'POST',
        url: snaps,
        headers: admin,
        payload: JSON.stringify({ description: 'x' }),
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'CLUSTER_UNREACHABLE' });
      expect(res.json().message).toContain('Cluster a');
      const list = await control.app.inject({ method: 'GET', url: snaps, headers: admin });
      expect(list.json()).toEqual([]);
    } finally {
      await control.close();
    }
  });
});
