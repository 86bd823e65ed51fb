// GET /metrics after known traffic: requests by route pattern, in flight, the pool, limits, runtime, leaderboards, exports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestServer, storeKind, type TestServer } from '../harness.js';
import { type Scrape, scrape } from '../metrics-scrape.js';
import { GAME_CONFIG, type Json, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';

const CONFIG_ROUTE = '/restv2/game/:apiKey/config';
// Each runtime request has a route of its own; other names reach the catch-all route.
const runtimeRoute = (name: string) => `/preview/rs/:credential/:secret/${name}`;
const RUNTIME_CATCH_ALL = runtimeRoute(':requestName');

describe(`GET /metrics after known traffic (${storeKind})`, () => {
  let w: RuntimeWorld;
  let url: string;
  beforeAll(async () => {
    w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_LOGIN_FAILURES_PER_ACCOUNT: '2' });
    url = await w.server.listen();
  });
  afterAll(async () => w.close());

  const getConfig = () => fetch(`${url}/restv2/game/${w.apiKey}/config`, { headers: w.owner });
  const runtime = (name: string, body: Record<string, unknown>, secret = w.secret) =>
    fetch(`${url}/preview/rs/${w.credential}/${encodeURIComponent(secret)}/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('GET /metrics → 200 in the Prometheus text format, with the process metrics', async () => {
    const s = await scrape(url);
    expect(s.status).toBe(200);
    expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(s.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(s.sum('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(s.sum('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.sum('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('5 GETs of a game configuration → its route pattern counted 5 more times; no label holds the API key', async () => {
    const before = await scrape(url);
    for (let i = 0; i < 5; i++) expect((await getConfig()).status).toBe(200);
    const after = await scrape(url);
    const labels = { method: 'GET', route: CONFIG_ROUTE, status_code: '200' };
    const count = (s: Scrape) => s.sum('http_request_duration_seconds_count', labels);
    expect(count(after) - count(before)).toBe(5);
    // Every observation falls in the +Inf bucket, and the sum of durations grew.
    expect(after.sum('http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count(after));
    expect(after.sum('http_request_duration_seconds_sum', labels)).toBeGreaterThan(
      before.sum('http_request_duration_seconds_sum', labels),
    );
    expect(after.text).not.toContain(w.apiKey);
  });

  it('a path no route matches → counted under route="unmatched" with its 404, never under the raw URL', async () => {
    const before = await scrape(url);
    const res = await fetch(`${url}/no/such/path-${Date.now()}`);
    expect(res.status).toBe(404);
    const after = await scrape(url);
    const labels = { method: 'GET', route: 'unmatched', status_code: '404' };
    expect(
      after.sum('http_request_duration_seconds_count', labels) -
        before.sum('http_request_duration_seconds_count', labels),
    ).toBe(1);
    expect(after.text).not.toContain('/no/such/path');
  });

  it('scrapes are not counted in the request histogram, and the pool gauges and wait histogram answer', async () => {
    await scrape(url);
    const s = await scrape(url);
    const routes = s.labelsOf('http_request_duration_seconds_count').map((l) => l.route);
    expect(routes).not.toContain('/metrics');
    expect(s.sum('playbase_db_pool_max_connections')).toBe(storeKind === 'pglite' ? 1 : 10);
    expect(s.sum('playbase_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(s.sum('playbase_db_pool_waiting_clients')).toBe(0);
    expect(s.sum('http_requests_in_flight')).toBe(0);
    const waits = s.sum('playbase_db_pool_acquire_seconds_count');
    expect((await getConfig()).status).toBe(200);
    expect((await scrape(url)).sum('playbase_db_pool_acquire_seconds_count')).toBeGreaterThan(waits);
  });

  it('a LogEventRequest → runtime requests by type, and one leaderboard entry written on the stage', async () => {
    const registered: Json = await (
      await runtime('RegistrationRequest', { userName: 'neo', password: 'pw-neo', displayName: 'Neo' })
    ).json();
    const before = await scrape(url);
    const logged = await runtime('LogEventRequest', {
      eventKey: 'score',
      playerId: registered.userId,
      SCORE: 7,
    });
    expect(logged.status).toBe(200);
    expect(await logged.json()).not.toHaveProperty('error');
    const answeredWithError = await runtime('LogEventRequest', {
      eventKey: 'nope',
      playerId: registered.userId,
    });
    expect(((await answeredWithError.json()) as Json).error).toEqual({ eventKey: 'INVALID' });
    expect((await runtime('FlyRequest', {})).status).toBe(404);
    expect((await runtime('LogEventRequest', {}, 'wrong-secret')).status).toBe(403);
    const after = await scrape(url);
    const grew = (labels: Record<string, string>) =>
      after.sum('playbase_runtime_requests_total', labels) -
      before.sum('playbase_runtime_requests_total', labels);
    const logEvent = { request: 'LogEventRequest', stage: 'preview' };
    expect(grew({ ...logEvent, outcome: 'ok' })).toBe(1);
    expect(grew({ ...logEvent, outcome: 'error' })).toBe(1);
    expect(grew({ ...logEvent, outcome: 'failed' })).toBe(1);
    expect(grew({ request: 'unknown', stage: 'preview', outcome: 'failed' })).toBe(1);
    const writes = (s: Scrape, stage: string) => s.sum('playbase_leaderboard_writes_total', { stage });
    expect(writes(after, 'preview') - writes(before, 'preview')).toBe(1);
    expect(writes(after, 'live')).toBe(0);
    // The runtime route is labelled by its pattern: the credential's secret never shows.
    const routeCount = (route: string) => after.sum('http_request_duration_seconds_count', { route });
    expect(routeCount(runtimeRoute('LogEventRequest'))).toBe(3);
    expect(routeCount(RUNTIME_CATCH_ALL)).toBe(1);
    expect(after.text).not.toContain(w.secret);
  });

  it('a data export → one export job of kind data, succeeded, and none left running', async () => {
    const jwt: Json = await (
      await fetch(`${url}/restv2/auth/game/${w.apiKey}/jwt`, { headers: w.owner })
    ).json();
    const before = await scrape(url);
    const res = await fetch(`${url}/preview/restv2/game/${w.apiKey}/data/export`, {
      headers: { 'x-svc-jwt': jwt['X-SVC-JWT'] },
    });
    expect(res.status).toBe(200);
    const after = await scrape(url);
    const jobs = (s: Scrape) =>
      s.sum('playbase_export_duration_seconds_count', { kind: 'data', outcome: 'succeeded' });
    expect(jobs(after) - jobs(before)).toBe(1);
    expect(after.sum('playbase_exports_running', { kind: 'data' })).toBe(0);
  });

  it('logins past the failure limit → each 429 LOGIN_THROTTLED counted under limit="login"', async () => {
    const before = await scrape(url);
    const wrong = basic('nobody@metrics.test', 'wrong-password');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await fetch(`${url}/restv2/auth/user`, { headers: { authorization: wrong } })).status);
    }
    expect(statuses).toEqual([401, 401, 429, 429]);
    const after = await scrape(url);
    const refusals = (s: Scrape) => s.sum('playbase_limit_refusals_total', { limit: 'login' });
    expect(refusals(after) - refusals(before)).toBe(2);
    expect(after.sum('playbase_limit_refusals_total', { limit: 'runtime' })).toBe(0);
  });
});

describe(`limit refusals on /metrics (${storeKind})`, () => {
  let w: RuntimeWorld;
  let url: string;
  beforeAll(async () => {
    w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_LIMIT_RUNTIME_PER_SECOND: '2' });
    url = await w.server.listen();
  });
  afterAll(async () => w.close());

  it('runtime calls past the per-game rate → as many limit="runtime" refusals as 429 answers', async () => {
    const body = { '@class': '.LeaderboardDataRequest', leaderboardShortCode: 'HSLB' };
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async () => (await w.rs('LeaderboardDataRequest', body)).statusCode),
    );
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThanOrEqual(4);
    const s = await scrape(url);
    expect(s.sum('playbase_limit_refusals_total', { limit: 'runtime' })).toBe(refused);
    const route = runtimeRoute('LeaderboardDataRequest');
    expect(s.sum('http_request_duration_seconds_count', { route, status_code: '429' })).toBe(refused);
  });
});

describe(`requests in flight (${storeKind})`, () => {
  let server: TestServer;
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = () => {};
  const arrived = new Promise<void>((resolve) => {
    entered = resolve;
  });
  beforeAll(async () => {
    server = await startTestServer(
      {},
      {
        extraRegistrars: [
          (app) => {
            app.get('/test/held', async () => {
              entered();
              await held;
              return { ok: true };
            });
          },
        ],
      },
    );
    await server.listen();
  });
  afterAll(async () => server.close());

  it('a request held by its handler → in flight 1 while held, 0 once answered', async () => {
    const answer = fetch(`${server.url}/test/held`);
    await arrived;
    expect((await scrape(server.url)).sum('http_requests_in_flight')).toBe(1);
    release();
    expect((await answer).status).toBe(200);
    const after = await scrape(server.url);
    expect(after.sum('http_requests_in_flight')).toBe(0);
    expect(after.sum('http_request_duration_seconds_count', { route: '/test/held' })).toBe(1);
  });
});
