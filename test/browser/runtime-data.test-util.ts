// Setup of the browser tests of the runtime data pages (issue 19): a game made over the API by the admin, with
// an event, a running total, a partitioned leaderboard, a data type, a server credential and an event script
// that logs a line (and throws above 1000), and helpers to play as a player and to sign in in the browser.
import type { Page } from 'playwright-core';
import { basic } from '../harness.js';
import { ADMIN } from './browser.test-util.js';

export type Json = Record<string, unknown>;

const CONFIG = {
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: 'A player scored',
      '~attributes': [
        { name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
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
      shortCode: 'HSC',
      name: 'High score by country',
      event: { '@ref': '/~events/score' },
      groupBy: [{ '@ref': '/~events/score/~attributes/COUNTRY' }],
      collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'TOP',
      name: 'Top by country',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/HSC' }, collector: 'SCORE', sort: 'DESC' }],
      partitions: [{ attribute: 'COUNTRY' }],
      resetFrequency: 'WEEKLY',
    },
  ],
  '~indexedTypes': [
    {
      shortCode: 'profile',
      name: 'Profile',
      fields: [
        { name: 'level', type: 'number' },
        { name: 'guild', type: 'string' },
      ],
    },
  ],
  '~credentials': [{ name: 'server' }],
};

const SCRIPT = `var d = Spark.getData();
Spark.getLog().info("scored " + d.SCORE);
if (d.SCORE > 1000) throw new Error("score too high");`;

export interface Game {
  apiKey: string;
  /** A runtime request on Preview with the server credential: its answer. */
  rs(name: string, body: Json): Promise<Json>;
  /** A management call as the admin (access token): its answer. */
  api(method: string, path: string, body?: unknown): Promise<Json>;
}

export async function seedGame(url: string, name: string): Promise<Game> {
  const login = await fetch(`${url}/restv2/auth/user`, {
    headers: { authorization: basic(ADMIN.username, ADMIN.password) },
  });
  const token = ((await login.json()) as Json)['X-SVCAccessToken'] as string;
  const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        'x-svcaccesstoken': token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  };
  const apiKey = (await api('POST', '/restv2/games', { name })).apiKey as string;
  await api('PUT', `/restv2/game/${apiKey}/config`, CONFIG);
  await api('PUT', `/restv2/game/${apiKey}/config/~scripts/event/score`, { script: SCRIPT });
  const { secret } = await api('POST', `/restv2/game/${apiKey}/config/~credentials/server/resetSecret`);
  const rs = async (request: string, body: Json): Promise<Json> => {
    const res = await fetch(`${url}/preview/rs/server/${encodeURIComponent(String(secret))}/${request}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Json;
  };
  return { apiKey, rs, api };
}

/** Registers a player and logs a score for it: its id. */
export async function player(g: Game, userName: string, score: number, country: string): Promise<string> {
  const made = await g.rs('RegistrationRequest', {
    userName,
    password: `pw-${userName}`,
    displayName: userName,
  });
  const id = made.userId as string;
  if (!id) throw new Error(`registration of ${userName}: ${JSON.stringify(made)}`);
  await g.rs('LogEventRequest', { playerId: id, eventKey: 'score', SCORE: score, COUNTRY: country });
  return id;
}

/** Signs the admin in (when the page shows the form) and opens a page of the game. */
export async function openGamePage(page: Page, url: string, apiKey: string, section: string): Promise<void> {
  await page.goto(`${url}/console/#/game/${apiKey}/${section}`);
  const username = page.getByLabel('Username');
  const main = page.locator('#main');
  await Promise.race([username.waitFor(), main.waitFor()]);
  if (await username.isVisible()) {
    await username.fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await main.waitFor();
}
