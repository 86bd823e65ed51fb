// The authentication matrix rows of game administration: snapshots, screens, screen snapshots, audit, push tests.
import { generateKeyPairSync } from 'node:crypto';
import type { MatrixFixture, MatrixRow } from '../auth/matrix.js';

const GAME = '/restv2/game/{apiKey}';
const S = `${GAME}/admin/snapshots`;
const M = `${GAME}/manage`;
const MS = `${M}/snapshots`;
const accounts: MatrixRow['credentials'] = ['basic', 'token'];

const path = (fx: MatrixFixture, p: string) => p.replace('{apiKey}', fx.game);

/** A snapshot the owner saves now, so each success case has its own to read, publish, delete or copy. */
async function freshSnapshot(fx: MatrixFixture, base: string): Promise<string> {
  const snap = (await fx.as(fx.owner, 'POST', path(fx, base), { description: fx.unique('m') })) as {
    id: string;
  };
  return snap.id;
}
const withSnapshot = (base: string) => async (fx: MatrixFixture) => ({
  params: { id: await freshSnapshot(fx, base) },
});

/** Screen snapshots go Live only on top of a Live game: the owner publishes a game snapshot first. */
async function publishGame(fx: MatrixFixture): Promise<void> {
  const id = await freshSnapshot(fx, S);
  await fx.as(fx.owner, 'POST', path(fx, `${S}/${id}/publish`));
}

function snapshotRows(base: string, key: string, newGame: boolean): MatrixRow[] {
  const read = { permission: [key, 1] } as MatrixRow['need'];
  const write = { permission: [key, 2] } as MatrixRow['need'];
  const publish = { permission: ['admin.publish', 2] } as MatrixRow['need'];
  const rows: MatrixRow[] = [
    { method: 'GET', path: base, need: read, ok: 200 },
    { method: 'GET', path: `${base}/page/{n}`, need: read, ok: 200, params: { n: '1' } },
    { method: 'POST', path: base, need: write, ok: 201, body: { description: 'matrix' } },
    { method: 'GET', path: `${base}/liveSnapshotId`, need: read, ok: 200 },
    { method: 'GET', path: `${base}/{id}`, need: read, ok: 200, prepare: withSnapshot(base) },
    { method: 'DELETE', path: `${base}/{id}`, need: write, ok: 200, prepare: withSnapshot(base) },
    {
      method: 'POST',
      path: `${base}/{id}/publish`,
      need: publish,
      ok: 200,
      prepare: async (fx) => {
        if (base === MS) await publishGame(fx);
        return { params: { id: await freshSnapshot(fx, base) } };
      },
    },
    {
      method: 'POST',
      path: `${base}/{id}/unpublish`,
      need: publish,
      ok: 200,
      prepare: async (fx) => {
        if (base === MS) await publishGame(fx);
        const id = await freshSnapshot(fx, base);
        await fx.as(fx.owner, 'POST', path(fx, `${base}/${id}/publish`));
        return { params: { id } };
      },
    },
    { method: 'POST', path: `${base}/revert/to/{id}`, need: write, ok: 200, prepare: withSnapshot(base) },
    {
      method: 'POST',
      path: `${base}/{id}/copy/to/{targetApiKey}`,
      need: write,
      credentials: accounts,
      ok: 200,
      // The target is a new game of the owner's with every fixture collaborator: the holder has the key there too.
      prepare: async (fx) => ({
        params: { id: await freshSnapshot(fx, base), targetApiKey: await fx.newGame() },
      }),
    },
  ];
  if (newGame)
    rows.push({
      method: 'POST',
      path: `${base}/{id}/copy`,
      need: write,
      ok: 200,
      prepare: withSnapshot(base),
    });
  return rows;
}

function manageRows(kind: string, key: string, body: (code: string) => Record<string, unknown>): MatrixRow[] {
  const base = `${M}/${kind}`;
  const read = { permission: [key, 1] } as MatrixRow['need'];
  const write = { permission: [key, 2] } as MatrixRow['need'];
  const fresh = async (fx: MatrixFixture) => {
    const code = fx.unique('m').replace(/-/g, '_');
    await fx.as(fx.owner, 'POST', path(fx, base), body(code));
    return { params: { shortCode: code } };
  };
  const { shortCode: _omit, ...update } = body('x');
  return [
    { method: 'GET', path: base, need: read, ok: 200 },
    {
      method: 'POST',
      path: base,
      need: write,
      ok: 201,
      body: body('unused'),
      prepare: async (fx) => ({ body: body(fx.unique('c').replace(/-/g, '_')) }),
    },
    { method: 'GET', path: `${base}/{shortCode}`, need: read, ok: 200, prepare: fresh },
    { method: 'PUT', path: `${base}/{shortCode}`, need: write, ok: 200, body: update, prepare: fresh },
    { method: 'DELETE', path: `${base}/{shortCode}`, need: write, ok: 200, prepare: fresh },
  ];
}

const pem = (type: 'ec' | 'rsa') =>
  (type === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 })
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
const apple = { keyPem: pem('ec'), keyId: 'KEY1234567', teamId: 'TEAM123456', topic: 'com.example.game' };
const google = {
  serviceAccount: {
    project_id: 'p',
    client_email: 'push@p.iam.gserviceaccount.com',
    private_key: pem('rsa'),
  },
};

/** Credentials whose providers answer nothing (closed loopback ports): each test is a 200 with an error summary. */
async function pushCredentials(fx: MatrixFixture): Promise<void> {
  await fx.as(fx.owner, 'PUT', path(fx, `${GAME}/config/~pushCredentials`), { apple, google });
}

/** Provider URLs nothing listens on, so the success cases answer at once (with an error summary). */
export const PUSH_ENV = {
  PLAYBASE_APNS_DEVELOPMENT_URL: 'https://127.0.0.1:9',
  PLAYBASE_APNS_PRODUCTION_URL: 'https://127.0.0.1:9',
  PLAYBASE_FCM_URL: 'https://127.0.0.1:9',
  PLAYBASE_FCM_TOKEN_URL: 'https://127.0.0.1:9/token',
};

export const ADMIN_ROWS: MatrixRow[] = [
  ...snapshotRows(S, 'admin.snapshots', true),
  ...snapshotRows(MS, 'manage', false),
  ...manageRows('screens', 'manage.screens', (shortCode) => ({ shortCode, name: 'Screen', template: 't' })),
  ...manageRows('snippets', 'manage.snippets', (shortCode) => ({ shortCode, name: 'Snippet', script: 's' })),
  ...manageRows('queries', 'manage.queries', (shortCode) => ({ shortCode, name: 'Q', collection: 'player' })),
  { method: 'GET', path: `${GAME}/admin/audit`, need: { permission: ['admin.audit', 1] }, ok: 200 },
];

/**
 * The push test rows. Kept apart: the matrix fixture names holder accounts after the key, and a key with capitals
 * (admin.pushNotifications) yields a user name the token module does not find (see test/admin/push.test.ts for
 * these routes' refusals until the fixture lower-cases it).
 */
export const PUSH_ROWS: MatrixRow[] = [
  {
    method: 'POST',
    path: `${GAME}/admin/pushNotifications/test/{provider}/{environment}`,
    need: { permission: ['admin.pushNotifications', 2] },
    ok: 200,
    params: { provider: 'apple', environment: 'development' },
    body: { pushId: 'device' },
    prepare: async (fx) => {
      await pushCredentials(fx);
      return {};
    },
  },
  {
    method: 'POST',
    path: `${GAME}/admin/pushNotifications/test/{provider}`,
    need: { permission: ['admin.pushNotifications', 2] },
    ok: 200,
    params: { provider: 'google' },
    body: { pushId: 'device' },
    prepare: async (fx) => {
      await pushCredentials(fx);
      return {};
    },
  },
];
