// Connection defenses over raw sockets: slow bodies and unfinished headers answer 408 then close, idle keep-alive
// connections close, and Node's own refusals (431, bad Content-Length) and the router's 414 carry the error body.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/route/app.js';
import { startTestServer, type TestServer } from '../harness.js';

interface Exchange {
  /** Everything the server sent until it closed the connection. */
  text: string;
  /** Milliseconds from connecting to the server's close. */
  closedAfterMs: number;
}

/** Connects, writes `send` (then nothing more), and reads until the server closes; fails after `maxMs`. */
function exchange(url: string, send: string, maxMs = 10_000): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${maxMs} ms; received: ${text.slice(0, 200)}`));
    }, maxMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.write(send);
  });
}

/** The status, headers (lower-case names) and JSON body of the first answer in `text`. */
function firstAnswer(text: string) {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers['content-length'] ?? 0);
  const body = text.slice(end + 4, end + 4 + length);
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body || 'null') };
}

function probeRoutes(app: App) {
  app.post('/probe/echo', async (request) => request.body ?? {});
  app.get('/probe/slow', async () => {
    await sleep(1500);
    return { ok: true };
  });
}

describe('connection timeouts (headers 500 ms, request 1000 ms, keep-alive 500 ms)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      {
        PLAYBASE_HTTP_HEADERS_TIMEOUT_MS: '500',
        PLAYBASE_HTTP_REQUEST_TIMEOUT_MS: '1000',
        PLAYBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
      },
      { extraRegistrars: [probeRoutes] },
    );
    await server.listen();
  });
  afterAll(() => server.close());

  it('body that stops arriving → 408 REQUEST_TIMEOUT with the error body and the request id, then close', async () => {
    const res = await exchange(
      server.url,
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'X-Request-Id: slow-body-1\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({
      message: expect.stringContaining('1000 ms'),
      code: 'REQUEST_TIMEOUT',
      requestId: 'slow-body-1',
    });
    expect(answer.headers['x-request-id']).toBe('slow-body-1');
    expect(answer.headers.connection).toBe('close');
    expect(res.closedAfterMs).toBeLessThan(6000);
  });

  it('headers that never finish → 408 REQUEST_TIMEOUT, then close', async () => {
    const res = await exchange(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(408);
    expect(answer.body.code).toBe('REQUEST_TIMEOUT');
    expect(answer.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['x-request-id']).toBe(answer.body.requestId);
    expect(res.closedAfterMs).toBeLessThan(6000);
  });

  it('idle keep-alive connection → closed by the server after the keep-alive timeout', async () => {
    const res = await exchange(
      server.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n',
    );
    expect(firstAnswer(res.text).status).toBe(200);
    expect(res.closedAfterMs).toBeLessThan(6000);
  });

  it('headers larger than 16 KB → 431 HEADERS_TOO_LARGE with the error body', async () => {
    const res = await exchange(
      server.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({
      message: 'Request headers are too large',
      code: 'HEADERS_TOO_LARGE',
      requestId: expect.any(String),
    });
    expect(answer.headers['x-request-id']).toBe(answer.body.requestId);
  });

  it('Content-Length that is not a number → 400 BAD_REQUEST with the error body', async () => {
    const res = await exchange(
      server.url,
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}',
    );
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'The Content-Length header is not valid',
      code: 'BAD_REQUEST',
      requestId: expect.any(String),
    });
  });

  it('two Content-Length headers that disagree → 400 BAD_REQUEST with the error body', async () => {
    const res = await exchange(
      server.url,
      'POST /probe/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    );
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('BAD_REQUEST');
    expect(answer.body.requestId).toEqual(expect.any(String));
  });

  it('HTTP/1.1 request without a Host header → 400 BAD_REQUEST with the error body', async () => {
    const res = await exchange(server.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'An HTTP/1.1 request needs a Host header',
      code: 'BAD_REQUEST',
      requestId: expect.any(String),
    });
    expect(answer.headers['x-request-id']).toBe(answer.body.requestId);
  });

  it('Expect header other than 100-continue → 417 EXPECTATION_FAILED with the error body', async () => {
    const res = await exchange(
      server.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nX-Request-Id: expect-1\r\n\r\n',
    );
    const answer = firstAnswer(res.text);
    expect(answer.status).toBe(417);
    expect(answer.body).toEqual({
      message: 'Cannot meet the expectation "teapot"',
      code: 'EXPECTATION_FAILED',
      requestId: 'expect-1',
    });
    expect(answer.headers['x-request-id']).toBe('expect-1');
  });

  it('path parameter longer than 100 characters → 414 URI_TOO_LONG with the error body', async () => {
    const res = await fetch(`${server.url}/preview/restv2/game/g/data/Score/${'x'.repeat(101)}`, {
      headers: { 'x-request-id': 'long-param-1' },
    });
    expect(res.status).toBe(414);
    expect(res.headers.get('x-request-id')).toBe('long-param-1');
    expect(await res.json()).toEqual({
      message: 'A path parameter is longer than 100 characters',
      code: 'URI_TOO_LONG',
      requestId: 'long-param-1',
    });
  });

  it('malformed percent-encoding in a path parameter → 400 BAD_REQUEST with the error body', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/preview/restv2/game/g/data/Score/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      message: expect.any(String),
      code: 'BAD_REQUEST',
      requestId: expect.any(String),
    });
  });
});

describe('connection inactivity timeout (500 ms)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      { PLAYBASE_HTTP_CONNECTION_TIMEOUT_MS: '500' },
      { extraRegistrars: [probeRoutes] },
    );
    await server.listen();
  });
  afterAll(() => server.close());

  it('answer the server works on for longer than the timeout → delivered, not cut', async () => {
    const res = await fetch(`${server.url}/probe/slow`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('connection that sends nothing → closed by the server', async () => {
    const res = await exchange(server.url, '');
    expect(res.text).toBe('');
    expect(res.closedAfterMs).toBeLessThan(6000);
  });
});
