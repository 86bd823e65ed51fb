// Expired access tokens are deleted on a timer by the process serving the auth role (PLAYBASE_TOKEN_PURGE_INTERVAL_MS);
// time is the server's clock, so a token expires by advancing it, not by waiting.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { basic, startTestServer, type TestServer } from '../harness.js';
import { call, createUser, login, tokenHeader, type User } from './helpers.js';

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});

async function tokenRows(server: TestServer, token: string): Promise<number> {
  const { rows } = await server.store.pool.query('SELECT 1 FROM access_tokens WHERE token_hash = $1', [
    hashToken(token),
  ]);
  return rows.length;
}

describe('purge of expired access tokens', () => {
  let server: TestServer;
  let user: User;
  let closed = false;
  beforeAll(async () => {
    server = await startTestServer(
      { PLAYBASE_TOKEN_PURGE_INTERVAL_MS: '20' },
      { logger: pino({ level: 'warn' }, sink) },
    );
    user = await createUser(server, 'purge@example.com', 'SE');
  });
  afterAll(async () => {
    if (!closed) await server?.close();
  });

  it('a token past its expiry → its row is gone after a purge tick; a live token keeps its row', async () => {
    const res = await call(server, 'GET', '/restv2/auth/user?expireInSeconds=120', {
      authorization: basic(user.username, user.password),
    });
    const shortLived = res.json()['X-SVCAccessToken'] as string;
    const longLived = await login(server, user.username, user.password);
    expect(await tokenRows(server, shortLived)).toBe(1);

    server.now.advance(120_000);
    await vi.waitFor(async () => expect(await tokenRows(server, shortLived)).toBe(0), { timeout: 5000 });
    expect(await tokenRows(server, longLived)).toBe(1);
    const me = await call(server, 'GET', '/restv2/auth/games', tokenHeader(longLived));
    expect(me.statusCode).toBe(200);
  });

  it('server closed → the purge stops (no tick meets the closed store)', async () => {
    await server.close();
    closed = true;
    const closedAt = logLines.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(logLines.slice(closedAt).join('')).not.toContain('access token purge failed');
  });
});
