// Shared setup of the player and leaderboard management tests: a runtime world (game, configuration, server
// credential) plus JWTs of the owner and of collaborators with too little permission, and HTTP helpers.
import type { LightMyRequestResponse } from 'fastify';
import { basic } from '../harness.js';
import {
  GAME_CONFIG,
  type Json,
  type RuntimeWorld,
  type Stage,
  startRuntimeWorld,
} from '../runtime/world.js';

export type { Json, Stage };

export interface PlayersWorld extends RuntimeWorld {
  /** X-SVC-JWT headers: the owner; no players/leaderboards permission; read-only on both; expired (owner). */
  jwt: { owner: Headers; none: Headers; reader: Headers; expired: Headers };
  /** A management call under the stage base URL: /{stage}/restv2/game/{apiKey}/{path}. */
  api(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    options?: { as?: Headers; body?: unknown; stage?: Stage },
  ): Promise<LightMyRequestResponse>;
  /** api() that must answer 200; the parsed answer. */
  okApi(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    stage?: Stage,
  ): Promise<Json>;
  /** The game's audit entries whose action starts with `action`, newest first. */
  audit(action: string): Promise<Json[]>;
  /** Rows of a SQL statement on the server's store (checks of what a table holds). */
  sql(text: string, params: unknown[]): Promise<Json[]>;
}

type Headers = Record<string, string>;

const PASSWORD = 'collaborator-password-1';
let counter = 0;

/** GAME_CONFIG with a partitioned weekly leaderboard and a data type. */
export const PLAYERS_CONFIG = {
  ...GAME_CONFIG,
  '~runningTotals': [
    ...GAME_CONFIG['~runningTotals'],
    {
      shortCode: 'HSC',
      name: 'High score by country',
      event: { '@ref': '/~events/score' },
      groupBy: [{ '@ref': '/~events/score/~attributes/COUNTRY' }],
      collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
    },
  ],
  '~leaderboards': [
    ...GAME_CONFIG['~leaderboards'],
    {
      shortCode: 'WEEKLB',
      name: 'Weekly by country',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/HSC' }, collector: 'SCORE', sort: 'DESC' }],
      partitions: [{ attribute: 'COUNTRY' }],
      resetFrequency: 'WEEKLY',
    },
  ],
  '~indexedTypes': [{ shortCode: 'profile', name: 'Profile', fields: [] }],
};

export async function startPlayersWorld(): Promise<PlayersWorld> {
  const w = await startRuntimeWorld(PLAYERS_CONFIG);
  const { server, apiKey } = w;
  const n = `${++counter}-${process.pid}`;
  const inject = (method: string, url: string, headers: Headers, payload?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const must = async (res: LightMyRequestResponse, what: string): Promise<Json> => {
    if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const account = async (username: string) =>
    must(
      await inject(
        'POST',
        '/restv2/auth/users',
        { authorization: server.adminBasic },
        {
          username,
          password: PASSWORD,
          country: 'GB',
        },
      ),
      'account',
    );
  const jwtOf = async (username: string, seconds?: number): Promise<Headers> => {
    const q = seconds ? `?expireInSeconds=${seconds}` : '';
    const res = await inject('GET', `/restv2/auth/game/${apiKey}/jwt${q}`, {
      authorization: basic(username, PASSWORD),
    });
    return { 'x-svc-jwt': (await must(res, 'jwt'))['X-SVC-JWT'] };
  };
  const collaborator = async (name: string, permissions: Record<string, number>) => {
    const username = `${name}-${n}@players.test`;
    await account(username);
    const group = `${name}${n.replace(/\W/g, '')}`;
    await must(
      await inject('POST', `/restv2/auth/game/${apiKey}/groups`, w.owner, { name: group, permissions }),
      'group',
    );
    await must(
      await inject('POST', `/restv2/auth/game/${apiKey}/collaborators`, w.owner, {
        email: username,
        groupNames: [group],
      }),
      'collaborator',
    );
    return jwtOf(username);
  };
  // The owner acts through a collaborator with every permission (the world's owner has no password here).
  const owner = await collaborator('admin', { nosql: 2, game: 1, admin: 2 });
  const none = await collaborator('none', { nosql: 2, 'nosql.players': 0, 'nosql.leaderboards': 0 });
  const reader = await collaborator('reader', { 'nosql.players': 1, 'nosql.leaderboards': 1 });
  const expiredName = `late-${n}@players.test`;
  await account(expiredName);
  await must(
    await inject('POST', `/restv2/auth/game/${apiKey}/collaborators`, w.owner, {
      email: expiredName,
      groupNames: ['Administrator'],
    }),
    'collaborator',
  );
  const expired = await jwtOf(expiredName, 60);
  // Every later request runs two minutes on: the short JWT is expired, the others are not.
  server.now.advance(120_000);

  const api: PlayersWorld['api'] = (method, path, options = {}) =>
    server.app.inject({
      method,
      url: `/${options.stage ?? 'preview'}/restv2/game/${apiKey}/${path}`,
      headers: {
        ...(options.as ?? owner),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
  const okApi: PlayersWorld['okApi'] = async (method, path, body, stage) =>
    must(await api(method, path, { body, stage }), `${method} ${path}`);
  const manage = w.ok;
  const audit = async (action: string) =>
    (await manage('GET', `/restv2/game/${apiKey}/admin/audit?action=${action}&pageSize=500`))
      .entries as Json[];
  const sql = async (text: string, params: unknown[]) => (await server.store.pool.query(text, params)).rows;
  return Object.assign(w, { jwt: { owner, none, reader, expired }, api, okApi, audit, sql }) as PlayersWorld;
}
