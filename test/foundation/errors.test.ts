import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/error-catalogue.js';
import { errors } from '../../src/errors.js';
import { loggerOptions } from '../../src/http/log.js';
import type { App } from '../../src/route/app.js';
import { startTestServer, type TestServer } from '../harness.js';

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});

function probeRoutes(app: App) {
  app.post(
    '/probe/echo',
    {
      schema: {
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => request.body,
  );
  app.get('/probe/crash', async () => {
    throw new Error('database password is hunter2');
  });
  app.get('/probe/known', async () => {
    throw errors.badRequest('known failure');
  });
}

describe('error model', () => {
  let server: TestServer;
  /** POST /probe/echo with `text` as the JSON body, exactly as written. */
  const postJsonText = (text: string) =>
    server.app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: text,
    });
  beforeAll(async () => {
    server = await startTestServer(
      {},
      { extraRegistrars: [probeRoutes], logger: pino(loggerOptions('info'), sink) },
    );
  });
  afterAll(() => server.close());

  it('unknown route → 404 ROUTE_NOT_FOUND with the error body and X-Request-Id', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/no/such/thing' });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body).toEqual({
      message: 'Route GET /no/such/thing not found',
      code: 'ROUTE_NOT_FOUND',
      requestId: res.headers['x-request-id'],
    });
    expect(String(res.headers['x-request-id'])).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('incoming well-formed X-Request-Id → echoed back; malformed one → replaced', async () => {
    const ok = await server.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(ok.headers['x-request-id']).toBe('abc-123');
    const bad = await server.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'a b<script>' },
    });
    expect(bad.headers['x-request-id']).not.toBe('a b<script>');
  });

  it('malformed JSON → 400 INVALID_JSON', async () => {
    const res = await postJsonText('{"name": ');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_JSON');
    expect(res.json().requestId).toBe(res.headers['x-request-id']);
  });

  it.each([
    ['spelled out', '{"name":"a","count":1,"__proto__":{"x":1}}'],
    ['behind \\u escapes', '{"name":"a","count":1,"\\u005f\\u005fproto\\u005f_":{"x":1}}'],
    ['nested', '{"name":"a","count":1,"inner":[{"__proto__":{"x":1}}]}'],
  ])('__proto__ key in a body (%s) → 400 INVALID_JSON', async (_how, payload) => {
    const res = await postJsonText(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_JSON');
  });

  it('"__proto__" as a string value, and other \\u escapes → accepted', async () => {
    const res = await postJsonText('{"name":"__proto__ \\u00e9","count":1}');
    expect(res.statusCode).toBe(200);
  });

  it('schema violation → 400 VALIDATION_FAILED naming the field in message and details', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/probe/echo',
      payload: { name: 'x', count: -1 },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('body.count');
    expect(body.details).toEqual([expect.objectContaining({ field: 'body.count' })]);
  });

  it('missing required field → 400 naming it', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/probe/echo', payload: { count: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.name');
  });

  it('unknown field → 400 naming it', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/probe/echo',
      payload: { name: 'a', count: 1, extra: true },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.extra');
  });

  it('JSON with charset parameter → accepted', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      payload: '{"name":"a","count":2}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'a', count: 2 });
  });

  it('wrong content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'text/xml' },
      payload: '<a/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('body over 4 MB → 413 BODY_TOO_LARGE', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(4 * 1024 * 1024 + 10), count: 1 });
    const res = await postJsonText(payload);
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('BODY_TOO_LARGE');
  });

  it('unexpected failure → 500 with a generic message; the cause is logged under the request id', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/probe/crash' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      message: 'Internal server error',
      code: 'INTERNAL_ERROR',
      requestId: res.headers['x-request-id'],
    });
    expect(res.body).not.toContain('hunter2');
    const logged = logLines
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === res.headers['x-request-id'] && l.level === 50);
    expect(logged?.err?.message).toBe('database password is hunter2');
  });

  it('a catalogue error → its own status and code', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/probe/known' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BAD_REQUEST', message: 'known failure' });
  });

  it('secrets in headers and in the query string never reach the log', async () => {
    await server.app.inject({
      method: 'POST',
      url: '/probe/echo?X-SVCAccessToken=supersecrettoken',
      payload: { name: 'a', count: 1 },
      headers: { authorization: 'Basic c2VjcmV0', 'x-svc-jwt': 'jwtsecretvalue' },
    });
    await server.app.inject({ method: 'GET', url: '/nothing?X-SVCAccessToken=supersecrettoken' });
    const all = logLines.join('');
    expect(all).toContain('[REDACTED]');
    expect(all).not.toContain('supersecrettoken');
    expect(all).not.toContain('jwtsecretvalue');
  });
});

describe('error catalogue', () => {
  it('every code is unique, SCREAMING_SNAKE, with a status and a description', () => {
    const codes = catalogue.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const e of catalogue) {
      expect(e.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.description.length).toBeGreaterThan(10);
    }
  });

  it('every code a module defines (def, defWithDetails, new PlaybaseError) → in the static catalogue', () => {
    const codes = new Set(catalogue.map((e) => e.code));
    const defined = sourceFiles('src').flatMap((file) => definedCodes(readFileSync(file, 'utf8')));
    expect(defined.length).toBeGreaterThan(100);
    expect(defined.filter((code) => !codes.has(code))).toEqual([]);
  });

  it('loading the catalogue loads no room: src/error-catalogue.ts reaches only errors modules', () => {
    const reached = importedModules('src/error-catalogue.ts');
    expect(reached.length).toBeGreaterThan(10);
    expect(reached.filter((file) => !/(^|[/-])errors\.ts$/.test(file))).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.includes('.test'))
    .map((name) => join(dir, name));
}

/** The code literals a source file hands to def, defWithDetails or new PlaybaseError. */
function definedCodes(source: string): string[] {
  const pattern = /(?:\bdef|\bdefWithDetails|new PlaybaseError)\(\s*(?:\d+,\s*)?'([A-Z][A-Z0-9_]*)'/g;
  return [...source.matchAll(pattern)].map((m) => m[1] as string);
}

/** The modules a file imports at run time (type-only imports left out), transitively, the file excluded. */
function importedModules(entry: string, seen = new Set<string>()): string[] {
  const source = readFileSync(entry, 'utf8');
  for (const m of source.matchAll(/^(?:import|export) (?!type )(?:[^;']*? from )?'(\.[^']+)\.js';/gm)) {
    const file = join(dirname(entry), `${m[1]}.ts`);
    if (!seen.has(file)) {
      seen.add(file);
      importedModules(file, seen);
    }
  }
  return [...seen];
}
