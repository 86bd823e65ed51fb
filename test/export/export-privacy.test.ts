// The export's privacy filter: credential fields in any spelling (snake, kebab, camel, any case) are left out at
// every depth of player and externalAuthentication documents; everything else is exported.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DataWorld, startDataWorld } from '../data/world.js';

type Line = { collection: string; document: Record<string, unknown> };

let w: DataWorld;
beforeAll(async () => {
  w = await startDataWorld();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const insert = (collection: string, doc: unknown) =>
  w.call('POST', `/preview/restv2/game/${w.apiKey}/mongo/collection/${collection}/insert`, w.owner, doc);

async function exportedLines(): Promise<Line[]> {
  const res = await w.call('GET', `/preview/restv2/game/${w.apiKey}/mongo/export`, w.explorer);
  expect(res.statusCode).toBe(200);
  const url = new URL(res.json().url as string);
  const file = await w.call('GET', `${url.pathname}${url.search}`, {});
  expect(file.statusCode).toBe(200);
  return gunzipSync(file.rawPayload)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

const PLAYER = {
  _id: 'p1',
  userName: 'ann',
  access_token: 'SECRET-1',
  'refresh-token': 'SECRET-2',
  Access_Token: 'SECRET-3',
  credentials: { password: 'SECRET-4', kind: 'email' },
  scriptData: {
    level: 7,
    oauth: { refresh_token: 'SECRET-5', ID_TOKEN: 'SECRET-6', provider: 'google' },
    devices: [
      { name: 'phone', session_token: 'SECRET-7' },
      { 'api-secret': 'SECRET-8', name: 'tablet' },
    ],
    deep: { a: { b: { c: { d: { e: { Pass_Word: 'SECRET-9', keep: 'deep-kept' } } } } } },
  },
};

const EXTERNAL = {
  _id: 'e1',
  provider: 'FB',
  access_token: 'SECRET-10',
  refresh_token: 'SECRET-11',
  profile: { name: 'Ann', tokens: { accessToken: 'SECRET-12' }, 'client-secret': 'SECRET-13' },
};

describe('export privacy filter', () => {
  beforeAll(async () => {
    expect((await insert('player', PLAYER)).statusCode).toBe(200);
    expect((await insert('externalAuthentication', EXTERNAL)).statusCode).toBe(200);
    const runtime = `/preview/restv2/game/${w.apiKey}/mongo/collection/notes/runtime`;
    expect((await w.call('POST', runtime, w.owner, {})).statusCode).toBe(200);
    expect((await insert('script.notes', { _id: 'n1', access_token: 'kept: not a player' })).statusCode).toBe(
      200,
    );
  });

  it('player and externalAuthentication with token and password fields in several spellings and depths → none exported, other fields kept', async () => {
    const lines = await exportedLines();
    const text = JSON.stringify(lines);
    for (let i = 1; i <= 13; i++) expect(text).not.toContain(`"SECRET-${i}"`);

    const player = lines.find((l) => l.collection === 'player')?.document;
    expect(player).toEqual({
      _id: 'p1',
      userName: 'ann',
      credentials: { kind: 'email' },
      scriptData: {
        level: { $numberInt: '7' },
        oauth: { provider: 'google' },
        devices: [{ name: 'phone' }, { name: 'tablet' }],
        deep: { a: { b: { c: { d: { e: { keep: 'deep-kept' } } } } } },
      },
    });
    const external = lines.find((l) => l.collection === 'externalAuthentication')?.document;
    expect(external).toEqual({ _id: 'e1', provider: 'FB', profile: { name: 'Ann' } });
  });

  it('the same spellings in another collection → exported as stored', async () => {
    const lines = await exportedLines();
    const note = lines.find((l) => l.collection === 'script.notes')?.document;
    expect(note).toEqual({ _id: 'n1', access_token: 'kept: not a player' });
  });
});
