// The one authentication layer: which credential a route takes, precedence, and failing closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf } from '../../src/auth/authenticate.js';
import type { App } from '../../src/route/app.js';
import { startTestServer, type TestServer } from '../harness.js';
import { call, createGame, createUser, issueJwt, jwtHeader, tokenHeader, type User } from './helpers.js';

/** Probe routes declaring requirements the way the nosql role and a careless future route would. */
function probes(app: App): void {
  const who = { handler: async (request: Parameters<typeof principalOf>[0]) => principalOf(request) };
  app.get(
    '/probe/game/:gameApiKey/runtime-data',
    { config: { auth: { credentials: ['jwt'], permission: ['nosql', 1] } } },
    who.handler,
  );
  app.get('/probe/no-game-param', { config: { auth: { permission: ['nosql', 1] } } }, who.handler);
}

describe('authentication layer', () => {
  let server: TestServer;
  let owner: User;
  let game: string;
  let jwt: string;
  beforeAll(async () => {
    server = await startTestServer({}, { extraRegistrars: [probes] });
    owner = await createUser(server, 'owner@layer.test');
    game = await createGame(server, owner);
    jwt = await issueJwt(server, owner, game);
  });
  afterAll(() => server.close());

  it('JWT-only route (the nosql role) → JWT 200; access token and Basic 401 CREDENTIAL_NOT_ACCEPTED', async () => {
    const url = `/probe/game/${game}/runtime-data`;
    const ok = await call(server, 'GET', url, jwtHeader(jwt));
    expect([ok.statusCode, ok.json().username, ok.json().kind]).toEqual([200, owner.username, 'jwt']);
    const byToken = await call(server, 'GET', url, tokenHeader(owner.token));
    expect([byToken.statusCode, byToken.json().code]).toEqual([401, 'CREDENTIAL_NOT_ACCEPTED']);
    expect(byToken.json().message).toBe('X-SVCAccessToken is not accepted here; use X-SVC-JWT');
    const basicAuth = `Basic ${Buffer.from(`${owner.username}:${owner.password}`).toString('base64')}`;
    const byBasic = await call(server, 'GET', url, { authorization: basicAuth });
    expect([byBasic.statusCode, byBasic.json().code]).toEqual([401, 'CREDENTIAL_NOT_ACCEPTED']);
    const none = await call(server, 'GET', url);
    expect([none.statusCode, none.json().message]).toEqual([401, 'Authentication required (X-SVC-JWT)']);
  });

  it('JWT and access token both sent to a route taking only tokens (new JWT) → the token is used, 200', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/jwt`, {
      ...jwtHeader(jwt),
      ...tokenHeader(owner.token),
    });
    expect(res.statusCode).toBe(200);
  });

  it('invalid JWT and a valid token to a route taking both → 401 JWT_INVALID (no silent fallback)', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, {
      ...jwtHeader('not.a.jwt'),
      ...tokenHeader(owner.token),
    });
    expect([res.statusCode, res.json().code]).toEqual([401, 'JWT_INVALID']);
  });

  it('"basic" scheme in lower case → accepted like "Basic"', async () => {
    const credentials = Buffer.from(`${owner.username}:${owner.password}`).toString('base64');
    const res = await call(server, 'GET', '/restv2/auth/games', { authorization: `basic ${credentials}` });
    expect(res.statusCode).toBe(200);
  });

  it('other Authorization schemes → 401 AUTH_REQUIRED', async () => {
    const res = await call(server, 'GET', '/restv2/auth/games', { authorization: `Bearer ${jwt}` });
    expect([res.statusCode, res.json().code]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('route declaring a game permission without a game in its path → 500, never served unchecked', async () => {
    const res = await call(server, 'GET', '/probe/no-game-param', tokenHeader(owner.token));
    expect([res.statusCode, res.json().code]).toEqual([500, 'INTERNAL_ERROR']);
  });

  it('credential checked before the body: no credential and an invalid body → 401, not 400', async () => {
    const res = await call(server, 'POST', '/restv2/games', {}, { unexpected: true });
    expect([res.statusCode, res.json().code]).toEqual([401, 'AUTH_REQUIRED']);
  });
});
