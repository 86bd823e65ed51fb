// How the config role serves the console (docs/console.md): a landing page at /, the bundle under /console/
// with its Content-Security-Policy, nothing of it in the OpenAPI document, and nothing on a nosql-only process.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

describe('the console on the config role', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('GET / → a page that links to /console/ and /docs', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/' });
    expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(res.body).toContain('href="/console/"');
    expect(res.body).toContain('href="/docs"');
  });

  it('GET /console → 301 to /console/; /console/ → the built index.html with a same-origin CSP, revalidated', async () => {
    const redirect = await server.app.inject({ method: 'GET', url: '/console' });
    expect([redirect.statusCode, redirect.headers.location]).toEqual([301, '/console/']);
    const res = await server.app.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(readFileSync('console/dist/index.html', 'utf8'));
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('the main script and its source map are served; hashed assets are cached for good', async () => {
    const html = readFileSync('console/dist/index.html', 'utf8');
    const main = /src="(\/console\/assets\/main-[\w-]+\.js)"/.exec(html)?.[1] as string;
    const js = await server.app.inject({ method: 'GET', url: main });
    expect([js.statusCode, js.headers['cache-control']]).toEqual([
      200,
      'public, max-age=31536000, immutable',
    ]);
    expect(js.headers['content-type']).toMatch(/javascript/);
    const map = await server.app.inject({ method: 'GET', url: `${main}.map` });
    expect(map.statusCode).toBe(200);
  });

  it('a path outside the bundle → 404 in the error format; /console/../package.json → not served', async () => {
    const missing = await server.app.inject({ method: 'GET', url: '/console/nope.js' });
    expect(missing.statusCode).toBe(404);
    const outside = await server.app.inject({ method: 'GET', url: '/console/../package.json' });
    expect(outside.body).not.toContain('"devDependencies"');
  });

  it('no console route in the OpenAPI document', () => {
    const paths = Object.keys((server.app.swagger() as { paths: Record<string, unknown> }).paths);
    expect(paths.filter((p) => p === '/' || p.startsWith('/console'))).toEqual([]);
  });
});

describe('a nosql-only process', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ PLAYBASE_ROLES: 'nosql' });
  });
  afterAll(() => server.close());

  it('serves no console and no landing page', async () => {
    for (const url of ['/', '/console/']) {
      expect((await server.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });
});
