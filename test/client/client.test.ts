// The typed client against a real server: Basic login, a game, nosql calls through endpoint discovery, JWT and
// access token renewal when they expire (the server's clock is moved), errors as PlaybaseApiError.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlaybaseClient,
  PlaybaseApiError,
  type PlaybaseClient,
  unwrap,
} from '../../src/client/index.js';
import { ADMIN, startTestServer, type TestServer } from '../harness.js';
import { freePort } from '../processes.js';

interface Sent {
  method: string;
  path: string;
  basic: boolean;
  accessToken: string | null;
  jwt: string | null;
  status: number;
}

let server: TestServer;
let sent: Sent[];
let client: PlaybaseClient;
let apiKey: string;

/** A fetch that records what each request carried and how it was answered. */
async function recording(request: Request): Promise<Response> {
  const entry: Sent = {
    method: request.method,
    path: new URL(request.url).pathname,
    basic: (request.headers.get('authorization') ?? '').startsWith('Basic '),
    accessToken: request.headers.get('x-svcaccesstoken'),
    jwt: request.headers.get('x-svc-jwt'),
    status: 0,
  };
  const response = await fetch(request);
  entry.status = response.status;
  sent.push(entry);
  return response;
}

beforeAll(async () => {
  const port = await freePort();
  server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  await server.listen();
  sent = [];
  client = createPlaybaseClient({
    baseUrl: server.url,
    username: ADMIN.username,
    password: ADMIN.password,
    now: () => server.now.value,
    fetch: recording,
  });
});
afterAll(() => server?.close());

describe('typed client', () => {
  it('first call → Basic login, then the access token; create and list a game', async () => {
    const game = await unwrap(client.api.POST('/restv2/games', { body: { name: 'Client game' } }));
    apiKey = game.apiKey;
    expect(game).toMatchObject({ name: 'Client game', owner: ADMIN.username, cluster: 'local' });
    expect(sent.map((s) => [s.method, s.path, s.basic])).toEqual([
      ['GET', '/restv2/auth/user', true],
      ['POST', '/restv2/games', false],
    ]);
    expect(sent[1]?.accessToken).toBe(client.session()?.accessToken);
    const games = await unwrap(client.api.GET('/restv2/games'));
    expect(games.map((g) => g.apiKey)).toContain(apiKey);
  });

  it('nosql through discovery → the stage base URL of /endpoints, with a nosql JWT', async () => {
    sent = [];
    const preview = await client.stage(apiKey, 'preview');
    const path = { gameApiKey: apiKey, collectionName: 'scores' };
    await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/runtime', {
        params: { path },
      }),
    );
    const collection = { gameApiKey: apiKey, collectionName: 'script.scores' };
    await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/insert', {
        params: { path: collection },
        body: [{ _id: 'ada', best: 12 }],
      }),
    );
    const found = await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find', {
        params: { path: collection },
        body: { query: { best: { $gt: 10 } } },
      }),
    );
    expect(found).toEqual([{ _id: 'ada', best: 12 }]);
    expect(sent.map((s) => s.path)).toEqual([
      `/restv2/game/${apiKey}/endpoints`,
      `/restv2/auth/game/${apiKey}/jwt/nosql`,
      `/preview/restv2/game/${apiKey}/mongo/collection/scores/runtime`,
      `/preview/restv2/game/${apiKey}/mongo/collection/script.scores/insert`,
      `/preview/restv2/game/${apiKey}/mongo/collection/script.scores/find`,
    ]);
    const jwt = await client.jwt(apiKey);
    expect(sent.slice(2).every((s) => s.jwt === jwt && s.accessToken === null)).toBe(true);
  });

  it('an hour later on both clocks → a new login and a new JWT before the call; the call succeeds', async () => {
    const oldJwt = await client.jwt(apiKey);
    server.now.advance(3601_000);
    sent = [];
    const preview = await client.stage(apiKey, 'preview');
    const count = await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/count', {
        params: { path: { gameApiKey: apiKey, collectionName: 'script.scores' } },
        body: {},
      }),
    );
    expect(count).toEqual({ count: 1 });
    expect(sent.map((s) => [s.path, s.status])).toEqual([
      // Both have expired by the client's clock: a login first, then the JWT, then the call.
      ['/restv2/auth/user', 200],
      [`/restv2/auth/game/${apiKey}/jwt/nosql`, 200],
      [`/preview/restv2/game/${apiKey}/mongo/collection/script.scores/count`, 200],
    ]);
    expect(await client.jwt(apiKey)).not.toBe(oldJwt);
  });

  it('a client whose clock lags the server → the JWT refused as expired (401) is renewed once, and the call retried', async () => {
    const lagging = createPlaybaseClient({
      baseUrl: server.url,
      username: ADMIN.username,
      password: ADMIN.password,
      now: () => Date.parse('2026-01-01T00:00:00Z'),
      fetch: recording,
    });
    const preview = await lagging.stage(apiKey, 'preview');
    const collections = () =>
      unwrap(
        preview.GET('/restv2/game/{gameApiKey}/mongo/collections', {
          params: { path: { gameApiKey: apiKey } },
        }),
      );
    await collections();
    server.now.advance(3601_000);
    sent = [];
    const listed = await collections();
    expect(listed.map((c) => c.name)).toContain('script.scores');
    const path = `/preview/restv2/game/${apiKey}/mongo/collections`;
    expect(sent.map((s) => [s.path, s.status])).toEqual([
      [path, 401],
      [`/restv2/auth/game/${apiKey}/jwt/nosql`, 401],
      ['/restv2/auth/user', 200],
      [`/restv2/auth/game/${apiKey}/jwt/nosql`, 200],
      [path, 200],
    ]);
  });

  it('a runtime request through the stage client → typed body, no JWT sent (its credential is in the URL)', async () => {
    const base = { params: { path: { apiKey } } };
    const credential = await unwrap(
      client.api.POST('/restv2/game/{apiKey}/config/~credentials', { ...base, body: { name: 'server' } }),
    );
    const preview = await client.stage(apiKey, 'preview');
    sent = [];
    const answer = await unwrap(
      preview.POST('/rs/{credential}/{secret}/RegistrationRequest', {
        params: { path: { credential: 'server', secret: credential.secret } },
        body: { userName: 'ada', password: 'correct horse', requestId: 7 },
      }),
    );
    expect(answer).toMatchObject({ '@class': '.RegistrationResponse', newPlayer: true, requestId: 7 });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.jwt).toBeNull();
  });

  it('an error answer → PlaybaseApiError with status, code and requestId; a token alone is never renewed', async () => {
    const stale = createPlaybaseClient({ baseUrl: server.url, accessToken: 'not-a-token', fetch: recording });
    const failure = await unwrap(stale.api.GET('/restv2/games')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PlaybaseApiError);
    expect(failure).toMatchObject({ status: 401, code: 'TOKEN_INVALID' });
    expect((failure as PlaybaseApiError).requestId).toMatch(/\S/);
    const missing = await unwrap(
      client.api.GET('/restv2/game/{apiKey}', { params: { path: { apiKey: 'no-such-game' } } }),
    ).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'GAME_NOT_FOUND' });
  });
});

describe('typed client: a Manage snippet', () => {
  it('runs through the stage client (the run route, with the nosql JWT) and answers its scriptData', async () => {
    await unwrap(
      client.api.POST('/restv2/game/{apiKey}/manage/snippets', {
        params: { path: { apiKey } },
        body: {
          shortCode: 'hi',
          name: 'Hi',
          script: 'Spark.setScriptData("hi", Spark.getData().scriptData.n + 1);',
        },
      }),
    );
    sent = [];
    const preview = await client.stage(apiKey, 'preview');
    const answer = await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/manage/snippets/{shortCode}/run', {
        params: { path: { gameApiKey: apiKey, shortCode: 'hi' } },
        body: { scriptData: { n: 41 } },
      }),
    );
    expect(answer).toEqual({ scriptData: { hi: 42 } });
    const run = sent.find((s) => s.path.endsWith('/run'));
    expect(run).toMatchObject({ path: `/preview/restv2/game/${apiKey}/manage/snippets/hi/run`, status: 200 });
    expect(run?.jwt).toBe(await client.jwt(apiKey));
  });
});
