import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoopbackTls } from '../../src/admin/push/test-peers.test-util.js';
import type { App } from '../../src/route/app.js';
import { startTestServer } from '../harness.js';

function makeCertificate(dir: string): { cert: string; key: string } {
  const { cert, key } = createLoopbackTls();
  writeFileSync(join(dir, 'cert.pem'), cert);
  writeFileSync(join(dir, 'key.pem'), key);
  return { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

function httpsGet(
  url: string,
  ca: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'playbase-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('TLS files given → serves HTTPS with HSTS; the certificate is the one given', async () => {
    const { cert, key } = makeCertificate(dir);
    const server = await startTestServer({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key, HOST: '127.0.0.1' });
    try {
      const url = await server.listen();
      expect(url.startsWith('https://')).toBe(true);
      const res = await httpsGet(`${url}/healthz`, readFileSync(cert));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      // A client that does not trust the certificate refuses it: TLS is really in use.
      await expect(httpsGet(`${url}/healthz`, Buffer.from(''))).rejects.toThrow();
    } finally {
      await server.close();
    }
  });
});

describe('graceful shutdown', () => {
  let release: () => void = () => {};
  const slow = (app: App) => {
    app.get('/probe/slow', async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { done: true };
    });
  };
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ HOST: '127.0.0.1' }, { extraRegistrars: [slow] });
  });

  it('close() while a request is in flight → that request still completes; new connections are refused', async () => {
    const url = await server.listen();
    const inflight = fetch(`${url}/probe/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    await new Promise((r) => setTimeout(r, 100));
    const port = Number(new URL(url).port);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    release();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
  });
});
