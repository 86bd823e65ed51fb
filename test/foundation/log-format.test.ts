// LOG_FORMAT=pretty: readable lines for a person at a terminal, with the same redaction as the JSON lines.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/log.js';
import { ADMIN, startTestServer, type TestServer } from '../harness.js';

describe('readable log lines (LOG_FORMAT=pretty)', () => {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { logger: createLogger('info', 'pretty', sink) });
  });
  afterAll(() => server.close());

  async function accessToken(): Promise<string> {
    const res = await server.app.inject({
      method: 'GET',
      url: '/restv2/auth/user',
      headers: { authorization: server.adminBasic },
    });
    return res.json()['X-SVCAccessToken'] as string;
  }

  it('a request → one readable line each for its arrival and its answer, not JSON', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/restv2/auth/games' });
    const id = String(res.headers['x-request-id']);
    const ours = text.split('\n').filter((l) => l.includes(id));
    expect(ours).toHaveLength(2);
    expect(ours[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: incoming request .*"url":"\/restv2\/auth\/games"/,
    );
    expect(ours[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed .*"statusCode":401/);
    expect(text.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  });

  it('a request carrying an access token in a header and in the query → the token is not in the output', async () => {
    const token = await accessToken();
    const res = await server.app.inject({
      method: 'GET',
      url: `/restv2/auth/games?X-SVCAccessToken=${encodeURIComponent(token)}`,
      headers: { 'x-svcaccesstoken': token },
    });
    expect(res.statusCode).toBe(200);
    const ours = text.split('\n').filter((l) => l.includes(String(res.headers['x-request-id'])));
    expect(ours.join('\n')).toContain('/restv2/auth/games?X-SVCAccessToken=[REDACTED]');
    expect(text).not.toContain(token);
    expect(text).not.toContain(ADMIN.password);
  });

  it('a runtime request with its credential secret in the path → the secret is not in the output', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/live/rs/server/SECRETpretty1/LogEventRequest',
      payload: {},
    });
    const ours = text.split('\n').filter((l) => l.includes(String(res.headers['x-request-id'])));
    expect(ours.join('\n')).toContain('/live/rs/server/[REDACTED]/LogEventRequest');
    expect(text).not.toContain('SECRETpretty1');
  });
});
