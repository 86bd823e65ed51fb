// Every configuration route × (missing permission, JWT of another game, expired token, expired JWT, bad input, allowed).
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthRequirement } from '../../src/auth/authenticate.js';
import { registerConfigRoutes } from '../../src/config/routes.js';
import type { App } from '../../src/route/app.js';
import { basic } from '../harness.js';
import { type ConfigWorld, type Headers, type Method, PASSWORD, startConfigWorld, tokenOf } from './world.js';

interface Row {
  method: Method;
  /** Under /restv2/game/{apiKey}/config; the targets exist (made in beforeAll). */
  path: string;
  permission: [string, 1 | 2];
  body?: unknown;
  /** A bad input: another path or body, and the refusal it gets. */
  bad: { path?: string; body?: unknown; status: number; code: string };
}

const ev = '/~events/winRace';
const at = `${ev}/~attributes/SCORE`;
const badEvent = { body: { name: '' }, status: 400, code: 'VALIDATION_FAILED' };
const unknownGame = { status: 404, code: 'GAME_NOT_FOUND' };
const dotted = (path: string) => ({ path, status: 400, code: 'VALIDATION_FAILED' });
const noBody = { body: { colour: 'red' }, status: 400, code: 'VALIDATION_FAILED' };

function entityRows(path: string, key: string, one: string): Row[] {
  const p = (level: 1 | 2): [string, 1 | 2] => [`configurator.${key}`, level];
  return [
    { method: 'GET', path, permission: p(1), bad: unknownGame },
    {
      method: 'POST',
      path,
      permission: p(2),
      body: {},
      bad: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    },
    { method: 'GET', path: `${path}/${one}`, permission: p(1), bad: dotted(`${path}/a.b`) },
    { method: 'PUT', path: `${path}/${one}`, permission: p(2), body: {}, bad: noBody },
    { method: 'PATCH', path: `${path}/${one}`, permission: p(2), body: {}, bad: noBody },
    { method: 'DELETE', path: `${path}/${one}`, permission: p(2), bad: dotted(`${path}/a.b`) },
  ];
}

const ROWS: Row[] = [
  { method: 'GET', path: '', permission: ['configurator.config', 1], bad: dotted('?full=maybe') },
  {
    method: 'PUT',
    path: '',
    permission: ['configurator.config', 2],
    body: {},
    bad: { body: { '~events': 'none' }, status: 400, code: 'VALIDATION_FAILED' },
  },
  { method: 'GET', path: '/~credentials', permission: ['configurator.credentials', 1], bad: unknownGame },
  {
    method: 'POST',
    path: '/~credentials',
    permission: ['configurator.credentials', 2],
    body: { name: 'x' },
    bad: { body: { name: 'a b' }, status: 400, code: 'VALIDATION_FAILED' },
  },
  {
    method: 'GET',
    path: '/~credentials/server',
    permission: ['configurator.credentials', 1],
    bad: dotted('/~credentials/a.b'),
  },
  {
    method: 'DELETE',
    path: '/~credentials/server',
    permission: ['configurator.credentials', 2],
    bad: dotted('/~credentials/a.b'),
  },
  {
    method: 'POST',
    path: '/~credentials/server/resetSecret',
    permission: ['configurator.credentials', 2],
    bad: dotted('/~credentials/a.b/resetSecret'),
  },
  {
    method: 'GET',
    path: '/~pushCredentials',
    permission: ['configurator.pushCredentials', 1],
    bad: unknownGame,
  },
  {
    method: 'PUT',
    path: '/~pushCredentials',
    permission: ['configurator.pushCredentials', 2],
    body: {},
    bad: { body: { apple: {} }, status: 400, code: 'PUSH_CREDENTIALS_INVALID' },
  },
  { method: 'GET', path: '/~events', permission: ['configurator.events', 1], bad: unknownGame },
  { method: 'POST', path: '/~events', permission: ['configurator.events', 2], body: {}, bad: badEvent },
  { method: 'GET', path: ev, permission: ['configurator.events', 1], bad: dotted('/~events/a.b') },
  { method: 'PUT', path: ev, permission: ['configurator.events', 2], body: {}, bad: badEvent },
  { method: 'PATCH', path: ev, permission: ['configurator.events', 2], body: {}, bad: badEvent },
  { method: 'DELETE', path: ev, permission: ['configurator.events', 2], bad: dotted('/~events/a.b') },
  {
    method: 'GET',
    path: `${ev}/~attributes`,
    permission: ['configurator.events', 1],
    bad: dotted('/~events/a-b/~attributes'),
  },
  {
    method: 'POST',
    path: `${ev}/~attributes`,
    permission: ['configurator.events', 2],
    body: {},
    bad: badEvent,
  },
  { method: 'GET', path: at, permission: ['configurator.events', 1], bad: dotted(`${ev}/~attributes/a.b`) },
  { method: 'PUT', path: at, permission: ['configurator.events', 2], body: {}, bad: badEvent },
  { method: 'PATCH', path: at, permission: ['configurator.events', 2], body: {}, bad: badEvent },
  {
    method: 'DELETE',
    path: at,
    permission: ['configurator.events', 2],
    bad: dotted(`${ev}/~attributes/a.b`),
  },
  ...entityRows('/~runningTotals', 'runningTotals', 'bestScore'),
  ...entityRows('/~leaderboards', 'leaderboards', 'topScores'),
  ...entityRows('/~indexedTypes', 'indexedTypes', 'inventory'),
  ...scriptRows(),
];

function scriptRows(): Row[] {
  const p = (level: 1 | 2): [string, 1 | 2] => ['configurator.cloudCode', level];
  const one = '/~scripts/event/winRace';
  return [
    { method: 'GET', path: '/~scripts', permission: p(1), bad: unknownGame },
    { method: 'GET', path: '/~scripts/export', permission: p(1), bad: unknownGame },
    { method: 'GET', path: one, permission: p(1), bad: dotted('/~scripts/event/a.b') },
    {
      method: 'PUT',
      path: one,
      permission: p(2),
      body: { script: 'var a;' },
      bad: { body: { script: 'var = ;' }, status: 400, code: 'SCRIPT_SYNTAX_ERROR' },
    },
    { method: 'DELETE', path: one, permission: p(2), bad: dotted('/~scripts/rtScript/winRace') },
    // Sent without a zip: the import answers 400 once the caller may import.
    { method: 'POST', path: '/~scripts/import', permission: p(2), bad: { status: 400, code: 'BAD_REQUEST' } },
  ];
}

let w: ConfigWorld;
let readOnly: Headers;
let dataExplorer: Headers;
let otherGameJwt: Headers;
let expiredToken: Headers;
let expiredJwt: Headers;
const url = (path: string, apiKey = w.apiKey) => `/restv2/game/${apiKey}/config${path}`;

beforeAll(async () => {
  w = await startConfigWorld();
  const ref = (to: string) => ({ '@ref': to });
  await w.ok('POST', url('/~events'), {
    name: 'Win Race',
    shortCode: 'winRace',
    description: '',
    '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' }],
  });
  await w.ok('POST', url('/~runningTotals'), {
    shortCode: 'bestScore',
    name: 'Best',
    event: ref(ev),
    collectors: [{ attribute: ref(at), calculation: 'MAX' }],
  });
  await w.ok('POST', url('/~leaderboards'), {
    shortCode: 'topScores',
    name: 'Top',
    fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'DESC' }],
  });
  await w.ok('POST', url('/~indexedTypes'), { shortCode: 'inventory', name: 'Inventory', fields: [] });
  await w.ok('POST', url('/~credentials'), { name: 'server' });
  await w.ok('PUT', url('/~scripts/event/winRace'), { script: 'Spark.setScriptData("won", true);' });
  readOnly = await w.collaborator(['ReadOnly']);
  dataExplorer = await w.collaborator(['DataExplorer']);
  otherGameJwt = await w.jwt(w.owner, w.otherApiKey);
  expiredToken = await tokenOf(w.server, w.ownerName, 1);
  expiredJwt = await w.jwt(w.owner, w.apiKey, 1);
  w.server.now.advance(2000);
}, 120_000);
afterAll(() => w.close());

describe('the table covers every configuration route', () => {
  it('each route registerConfigRoutes declares → one row with the same permission', async () => {
    const app = Fastify();
    const declared: string[] = [];
    app.addHook('onRoute', (route) => {
      const auth = route.config?.auth as AuthRequirement | undefined;
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') declared.push(`${method} ${route.url} ${auth?.permission?.join('=')}`);
      }
    });
    registerConfigRoutes(app as unknown as App, w.server.ctx);
    await app.close();
    const shape = (path: string) =>
      path.replace(/\/(winRace|SCORE|bestScore|topScores|inventory|server|event)(?=\/|$)/g, '/{}');
    const table = ROWS.map((r) => `${r.method} ${shape(r.path)} ${r.permission.join('=')}`).sort();
    const routes = declared
      .map((d) => d.replace('/restv2/game/:apiKey/config', '').replace(/:\w+/g, '{}'))
      .sort();
    expect(table).toEqual(routes);
  });
});

for (const row of ROWS) {
  const [key, level] = row.permission;
  describe(`${row.method} /config${row.path}`, () => {
    const send = (as: Headers, path = row.path, body = row.body, apiKey?: string) =>
      w.call(row.method, url(path, apiKey), as, body);

    it(`${level === 2 ? 'ReadOnly collaborator (configurator 1)' : 'DataExplorer collaborator (no configurator)'} → 403 PERMISSION_DENIED naming ${key}`, async () => {
      const res = await send(level === 2 ? readOnly : dataExplorer);
      expect([res.statusCode, res.json().code, res.json().message]).toEqual([
        403,
        'PERMISSION_DENIED',
        `Permission ${key} at level ${level} required`,
      ]);
    });

    it('JWT issued for another game → 403 JWT_WRONG_GAME', async () => {
      const res = await send(otherGameJwt);
      expect([res.statusCode, res.json().code]).toEqual([403, 'JWT_WRONG_GAME']);
    });

    it('expired access token → 401 TOKEN_EXPIRED; expired JWT → 401 TOKEN_EXPIRED', async () => {
      const token = await send(expiredToken);
      const jwt = await send(expiredJwt);
      expect([token.statusCode, token.json().code, jwt.statusCode, jwt.json().code]).toEqual([
        401,
        'TOKEN_EXPIRED',
        401,
        'TOKEN_EXPIRED',
      ]);
    });

    it(`bad input → ${row.bad.status} ${row.bad.code}`, async () => {
      const apiKey = row.bad.code === 'GAME_NOT_FOUND' ? 'nosuchgame0000000000' : undefined;
      const res = await send(
        w.owner,
        row.bad.path ?? row.path,
        'body' in row.bad ? row.bad.body : row.body,
        apiKey,
      );
      expect([res.statusCode, res.json().code]).toEqual([row.bad.status, row.bad.code]);
    });

    if (level === 1) {
      it('Basic, access token (ReadOnly collaborator) and JWT → 200', async () => {
        const viaBasic = await send({ authorization: basic(w.ownerName, PASSWORD) });
        const viaToken = await send(readOnly);
        const viaJwt = await send(await w.jwt(readOnly, w.apiKey));
        expect([viaBasic.statusCode, viaToken.statusCode, viaJwt.statusCode]).toEqual([200, 200, 200]);
        // The script export answers a zip: the same bytes.
        if (viaBasic.headers['content-type'] === 'application/zip') {
          expect(viaToken.rawPayload).toEqual(viaBasic.rawPayload);
        } else expect(viaToken.json()).toEqual(viaBasic.json());
      });
    }
  });
}

describe('writes with each kind of credential', () => {
  it('POST ~events with Basic, with an access token and with a JWT → 201 each', async () => {
    const jwt = await w.jwt(w.owner, w.apiKey);
    const headers = [{ authorization: basic(w.ownerName, PASSWORD) }, w.owner, jwt];
    const codes = [];
    for (const [i, as] of headers.entries()) {
      codes.push(
        (await w.call('POST', url('/~events'), as, { name: 'E', shortCode: `kind${i}`, description: '' }))
          .statusCode,
      );
    }
    expect(codes).toEqual([201, 201, 201]);
  });
});
