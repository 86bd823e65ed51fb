// Credentials in URLs never reach the log, however their parameter names are spelled or encoded.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/log.js';
import { startTestServer, type TestServer } from '../harness.js';

describe('log redaction', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { logger: pino(loggerOptions('info'), sink) });
  });
  afterAll(() => server.close());

  it.each([
    ['literal name', '/restv2/auth/games?X-SVCAccessToken=SECRETa1'],
    ['encoded dash', '/restv2/auth/games?X%2DSVCAccessToken=SECRETa2'],
    ['lower-case encoded dash', '/restv2/auth/games?X%2dSVCAccessToken=SECRETa3'],
    ['every letter encoded', '/restv2/auth/games?%58%2D%53%56%43AccessToken=SECRETa4'],
    ['doubly encoded', '/restv2/auth/games?X%252DSVCAccessToken=SECRETa5'],
    ['lower case', '/restv2/auth/games?x-svcaccesstoken=SECRETa6'],
    ['trailing +', '/restv2/auth/games?X-SVCAccessToken+=SECRETa7'],
    ['after other parameters', '/restv2/auth/games?a=1&X-SVC%41ccessToken=SECRETa8&b=2'],
    ['JWT name encoded', '/restv2/auth/games?X-SVC%2DJWT=SECRETa9'],
    ['snake case', '/restv2/auth/games?access_token=SECRETb1'],
    ['signature upper case', '/live/restv2/game/g/export/download/f.gz?expires=1&SIGNATURE=SECRETb2'],
    ['runtime secret', '/live/rs/cred/SECRETb3/LogEventRequest'],
    ['runtime secret, encoded rs', '/live/%72%73/cred/SECRETb4/LogEventRequest'],
  ])('%s → the token text is not in the log', async (_name, url) => {
    const token = /SECRET[a-z0-9]+/.exec(url)?.[0] as string;
    const res = await server.app.inject({ method: 'GET', url });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    const ours = lines.filter((l) => l.includes(String(res.headers['x-request-id'])));
    expect(ours.join('')).toContain('[REDACTED]');
    expect(lines.join('')).not.toContain(token);
  });

  it('an encoded token parameter name is accepted by authentication, and still not logged', async () => {
    const login = await server.app.inject({
      method: 'GET',
      url: '/restv2/auth/user',
      headers: { authorization: server.adminBasic },
    });
    const token = login.json()['X-SVCAccessToken'] as string;
    const res = await server.app.inject({
      method: 'GET',
      url: `/restv2/auth/games?X%2DSVCAccessToken=${encodeURIComponent(token)}`,
    });
    expect(res.statusCode).toBe(200);
    expect(lines.join('')).not.toContain(token);
  });
});
