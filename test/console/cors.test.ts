// PLAYBASE_CONSOLE_ORIGINS (docs/console.md): the nosql role answers CORS preflights of the configured console
// origins on the stage paths only; without the setting, same origin only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/settings.js';
import { startTestServer, type TestServer } from '../harness.js';

const CONSOLE = 'https://console.example.com';
const STAGE = '/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/mongo/collections';

function preflight(server: TestServer, url: string, origin: string) {
  return server.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-svc-jwt',
    },
  });
}

describe('PLAYBASE_CONSOLE_ORIGINS set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ PLAYBASE_CONSOLE_ORIGINS: `${CONSOLE}, http://localhost:5173` });
  });
  afterAll(() => server.close());

  it('a preflight from a configured origin on a stage path → 204 allowing the origin, X-SVC-JWT and POST', async () => {
    const res = await preflight(server, STAGE, CONSOLE);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(String(res.headers['access-control-allow-headers'])).toContain('x-svc-jwt');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('the answer itself (a 401 without a JWT) carries the origin, so the console can read the error', async () => {
    const res = await server.app.inject({ method: 'GET', url: STAGE, headers: { origin: CONSOLE } });
    expect([res.statusCode, res.headers['access-control-allow-origin']]).toEqual([401, CONSOLE]);
  });

  it('another origin, or a path outside the stages → no access-control-allow-origin', async () => {
    const other = await preflight(server, STAGE, 'https://evil.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const config = await preflight(server, '/restv2/games', CONSOLE);
    expect(config.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('PLAYBASE_CONSOLE_ORIGINS unset', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('a preflight → no CORS headers (same origin only)', async () => {
    const res = await preflight(server, STAGE, CONSOLE);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('PLAYBASE_CONSOLE_ORIGINS values', () => {
  it('a path, a trailing slash, another scheme or no scheme → a settings error naming the variable', () => {
    for (const value of [
      `${CONSOLE}/console`,
      `${CONSOLE}/`,
      'ftp://console.example.com',
      'console.example.com',
    ]) {
      expect(() => loadSettings({ PLAYBASE_CONSOLE_ORIGINS: value }), value).toThrow(SettingsError);
      expect(() => loadSettings({ PLAYBASE_CONSOLE_ORIGINS: value }), value).toThrow(
        /PLAYBASE_CONSOLE_ORIGINS/,
      );
    }
  });

  it('a list with spaces and duplicates → each origin once', () => {
    expect(loadSettings({ PLAYBASE_CONSOLE_ORIGINS: ` ${CONSOLE} ,${CONSOLE}` }).consoleOrigins).toEqual([
      CONSOLE,
    ]);
  });
});
