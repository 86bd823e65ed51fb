// Who may read GET /metrics: loopback clients when no token is set, only the token's holder when one is.
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/settings.js';
import { startTestServer, storeKind, type TestServer } from '../harness.js';
import { scrape } from '../metrics-scrape.js';

const TOKEN = 'scrape-token-0123456789abcdef';

/** An address of this machine other than loopback, to reach the server as a remote client would. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

async function refusal(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toEqual({ message: expect.any(String), code, requestId: res.headers.get('x-request-id') });
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers });

describe('PLAYBASE_METRICS_TOKEN setting', () => {
  it('a token shorter than 16 characters, or with a space or a quote → the start fails naming the variable', () => {
    for (const bad of ['short-token', 'has a space in it here', 'quote"0123456789abcdef']) {
      expect(() => loadSettings({ PLAYBASE_METRICS_TOKEN: bad })).toThrow(SettingsError);
      expect(() => loadSettings({ PLAYBASE_METRICS_TOKEN: bad })).toThrow(/PLAYBASE_METRICS_TOKEN/);
    }
    expect(loadSettings({ PLAYBASE_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadSettings({}).metricsToken).toBeUndefined();
  });
});

describe(`GET /metrics without a token (${storeKind})`, () => {
  let server: TestServer;
  let url: string;
  beforeAll(async () => {
    // Every interface: a client on loopback and one from outside reach the same server.
    server = await startTestServer({ HOST: '0.0.0.0' });
    url = (await server.listen()).replace('localhost', '127.0.0.1');
  });
  afterAll(async () => server.close());

  it('a loopback client → 200', async () => {
    expect((await scrape(url)).status).toBe(200);
  });

  it('a loopback client that came through a proxy (X-Forwarded-For, Forwarded, X-Real-IP) → 403 METRICS_LOOPBACK_ONLY', async () => {
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
    ];
    for (const header of proxied) {
      await refusal(await get(url, header), 403, 'METRICS_LOOPBACK_ONLY');
    }
  });

  it.skipIf(!outside)('a client from another address → 403 METRICS_LOOPBACK_ONLY', async () => {
    const port = new URL(url).port;
    await refusal(await get(`http://${outside}:${port}`), 403, 'METRICS_LOOPBACK_ONLY');
  });
});

describe(`GET /metrics with PLAYBASE_METRICS_TOKEN (${storeKind})`, () => {
  let server: TestServer;
  let url: string;
  beforeAll(async () => {
    server = await startTestServer({ HOST: '0.0.0.0', PLAYBASE_METRICS_TOKEN: TOKEN });
    url = (await server.listen()).replace('localhost', '127.0.0.1');
  });
  afterAll(async () => server.close());

  it('no Authorization, even from loopback → 401 METRICS_TOKEN_REQUIRED with a Bearer challenge', async () => {
    const res = await get(url);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    await refusal(res, 401, 'METRICS_TOKEN_REQUIRED');
  });

  it('a wrong token, the token with a character more or less, or no token after Bearer → 401 METRICS_TOKEN_INVALID', async () => {
    for (const authorization of [
      'Bearer wrong-token-0123456789abcdef',
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      'Bearer ',
      `Bearer ${TOKEN} extra`,
    ]) {
      await refusal(await get(url, { authorization }), 401, 'METRICS_TOKEN_INVALID');
    }
  });

  it("another scheme (the administrator's Basic credentials, the token sent as Basic) → 401 METRICS_TOKEN_INVALID", async () => {
    await refusal(await get(url, { authorization: server.adminBasic }), 401, 'METRICS_TOKEN_INVALID');
    await refusal(await get(url, { authorization: `Basic ${TOKEN}` }), 401, 'METRICS_TOKEN_INVALID');
  });

  it('an access token of the administrator does not open it → 401 METRICS_TOKEN_REQUIRED', async () => {
    const login = await fetch(`${url}/restv2/auth/user`, { headers: { authorization: server.adminBasic } });
    const token = ((await login.json()) as Record<string, string>)['X-SVCAccessToken'] as string;
    await refusal(await get(url, { 'x-svcaccesstoken': token }), 401, 'METRICS_TOKEN_REQUIRED');
  });

  it('the token → 200 in the text format, the scheme in any case', async () => {
    const s = await scrape(url, { authorization: `Bearer ${TOKEN}` });
    expect(s.status).toBe(200);
    expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(s.sum('http_requests_in_flight')).toBe(0);
    expect((await get(url, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it('the token through a proxy → 200: the token, not the address, decides', async () => {
    const res = await get(url, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' });
    expect(res.status).toBe(200);
  });

  it.skipIf(!outside)('a client from another address with the token → 200; without → 401', async () => {
    const remote = `http://${outside}:${new URL(url).port}`;
    expect((await get(remote, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    await refusal(await get(remote), 401, 'METRICS_TOKEN_REQUIRED');
  });

  it('scrapes, refused or not, are never counted in the request histogram', async () => {
    await get(url);
    const s = await scrape(url, { authorization: `Bearer ${TOKEN}` });
    const routes = s.labelsOf('http_request_duration_seconds_count').map((l) => l.route);
    expect(routes).not.toContain('/metrics');
  });
});
