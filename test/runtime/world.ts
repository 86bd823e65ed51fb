// Shared setup of the runtime tests: a server, a game with a configuration and a server credential, helpers.
import type { LightMyRequestResponse } from 'fastify';
import { basic, startTestServer, type TestServer } from '../harness.js';

export type Headers = Record<string, string>;
// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
export type Json = any;
export type Stage = 'live' | 'preview';

export interface RuntimeWorld {
  server: TestServer;
  apiKey: string;
  owner: Headers;
  credential: string;
  /** The credential's secret the helpers use; a test that resets it sets the new one here. */
  secret: string;
  /** POST /{stage}/rs/{credential}/{secret}/{name} with the body (JSON). */
  rs(
    name: string,
    body: unknown,
    options?: { stage?: Stage; credential?: string; secret?: string },
  ): Promise<LightMyRequestResponse>;
  /** rs() that must answer 200; the parsed answer. */
  ask(name: string, body: Record<string, unknown>, stage?: Stage): Promise<Json>;
  /** A management call as the owner that must succeed. */
  ok(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<Json>;
  /** Replaces the game's configuration (credentials kept). */
  putConfig(doc: Record<string, unknown>): Promise<void>;
  /** Snapshot of the working copy, published to Live. */
  publish(): Promise<string>;
  /** A registered player of the stage; its id. */
  player(name: string, stage?: Stage): Promise<string>;
  /** Documents of a collection through the nosql find API (a JWT of the owner), in extended JSON. */
  find(collection: string, body?: Record<string, unknown>, stage?: Stage): Promise<Json[]>;
  close(): Promise<void>;
}

let counter = 0;
const PASSWORD = 'runtime-password-1';

async function must(res: LightMyRequestResponse, what: string, status?: number): Promise<Json> {
  const good =
    status === undefined ? res.statusCode >= 200 && res.statusCode < 300 : res.statusCode === status;
  if (!good) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

export async function startRuntimeWorld(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestServer>[1] = {},
): Promise<RuntimeWorld> {
  const server = await startTestServer(env, options);
  const username = `owner${++counter}-${process.pid}@runtime.test`;
  await must(
    await server.app.inject({
      method: 'POST',
      url: '/restv2/auth/users',
      headers: { authorization: server.adminBasic },
      payload: { username, password: PASSWORD, country: 'GB' },
    }),
    'account',
    201,
  );
  const token = await must(
    await server.app.inject({
      method: 'GET',
      url: '/restv2/auth/user',
      headers: { authorization: basic(username, PASSWORD) },
    }),
    'token',
  );
  const owner = { 'x-svcaccesstoken': token['X-SVCAccessToken'] as string };
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    must(
      await server.app.inject({
        method,
        url,
        headers: body === undefined ? owner : { ...owner, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      }),
      `${method} ${url}`,
    );
  const created = await server.app.inject({
    method: 'POST',
    url: '/restv2/games',
    headers: owner,
    payload: { name: 'Runtime game' },
  });
  const apiKey = (await must(created, 'game', 201)).apiKey as string;
  const credential = 'server';
  const putConfig = async (doc: Record<string, unknown>) => {
    await ok('PUT', `/restv2/game/${apiKey}/config`, { ...doc, '~credentials': [{ name: credential }] });
  };
  await putConfig(config);
  const state = {
    secret: (await ok('POST', `/restv2/game/${apiKey}/config/~credentials/${credential}/resetSecret`))
      .secret as string,
  };
  const rs = (name: string, body: unknown, o: { stage?: Stage; credential?: string; secret?: string } = {}) =>
    server.app.inject({
      method: 'POST',
      url: `/${o.stage ?? 'preview'}/rs/${o.credential ?? credential}/${encodeURIComponent(o.secret ?? state.secret)}/${name}`,
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      payload: JSON.stringify(body),
    });
  const ask = async (name: string, body: Record<string, unknown>, stage: Stage = 'preview') =>
    must(await rs(name, { '@class': `.${name}`, ...body }, { stage }), name, 200);
  const publish = async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/restv2/game/${apiKey}/admin/snapshots`,
      headers: owner,
      payload: { description: `runtime test ${++counter}` },
    });
    const { id } = await must(res, 'snapshot', 201);
    await must(
      await server.app.inject({
        method: 'POST',
        url: `/restv2/game/${apiKey}/admin/snapshots/${id}/publish`,
        headers: owner,
      }),
      'publish',
    );
    return id as string;
  };
  const player = async (name: string, stage: Stage = 'preview') => {
    const answer = await ask(
      'RegistrationRequest',
      { userName: name, password: `pw-${name}`, displayName: `Dr ${name}` },
      stage,
    );
    if (!answer.userId) throw new Error(`register ${name}: ${JSON.stringify(answer)}`);
    return answer.userId as string;
  };
  const find = async (collection: string, body: Record<string, unknown> = {}, stage: Stage = 'preview') => {
    // A fresh JWT each time (Basic credentials): tests move the clock past any token's lifetime.
    const jwt = await server.app.inject({
      method: 'GET',
      url: `/restv2/auth/game/${apiKey}/jwt`,
      headers: { authorization: basic(username, PASSWORD) },
    });
    const res = await server.app.inject({
      method: 'POST',
      url: `/${stage}/restv2/game/${apiKey}/mongo/collection/${collection}/find`,
      headers: {
        'x-svc-jwt': (await must(jwt, 'jwt', 200))['X-SVC-JWT'],
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
    return must(res, `find ${collection}`, 200);
  };
  return {
    find,
    server,
    apiKey,
    owner,
    credential,
    get secret() {
      return state.secret;
    },
    set secret(value: string) {
      state.secret = value;
    },
    rs,
    ask,
    ok,
    putConfig,
    publish,
    player,
    close: () => server.close(),
  };
}

/** The events, running totals and leaderboards most runtime tests use. */
export const GAME_CONFIG = {
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: 'A player scored',
      '~attributes': [
        { name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
        {
          name: 'Level',
          shortCode: 'LEVEL',
          dataType: 'int',
          defaultAggregationType: 'SUPPLEMENTAL',
          defaultValue: 1,
        },
        {
          name: 'Country',
          shortCode: 'COUNTRY',
          dataType: 'string',
          defaultAggregationType: 'GROUPED',
          defaultValue: 'XX',
        },
      ],
    },
  ],
  '~runningTotals': [
    {
      shortCode: 'HS',
      name: 'High score',
      event: { '@ref': '/~events/score' },
      collectors: [
        { attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' },
        { attribute: { '@ref': '/~events/score/~attributes/LEVEL' }, calculation: 'SUPPLEMENTAL' },
      ],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'HSLB',
      name: 'High scores',
      fields: [
        { runningTotal: { '@ref': '/~runningTotals/HS' }, collector: 'SCORE', sort: 'DESC' },
        { runningTotal: { '@ref': '/~runningTotals/HS' }, collector: 'LEVEL', sort: 'DESC' },
      ],
    },
  ],
};
