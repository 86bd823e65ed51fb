// Export one game, import into another with the same configuration: every document and item comes back exactly
// (the second game's export equals the first's, line by line), and its leaderboards rank as the first game's do.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Headers, type ImportWorld, type Json, startImportWorld } from './import-world.js';

describe(`export of one game imported into another (${storeKind})`, () => {
  let w: ImportWorld;
  const games: Record<'a' | 'b', { apiKey: string; secret: string; jwt: Headers }> = {} as never;
  const ids: Record<string, string> = {};

  const rs = async (game: 'a' | 'b', name: string, body: Record<string, unknown>) => {
    const { apiKey: _apiKey, secret } = games[game];
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/preview/rs/server/${encodeURIComponent(secret)}/${name}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ '@class': `.${name}`, ...body }),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const mongo = (game: 'a' | 'b', path: string, body?: unknown) =>
    w.call(
      body === undefined ? 'GET' : 'POST',
      `/preview/restv2/game/${games[game].apiKey}/mongo/${path}`,
      games[game].jwt,
      body,
    );

  /** The export file of the game, downloaded: its gzip bytes and its lines. */
  async function exported(game: 'a' | 'b', kind: 'mongo' | 'data') {
    const res = await w.call(
      'GET',
      `/preview/restv2/game/${games[game].apiKey}/${kind}/export`,
      games[game].jwt,
    );
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().url);
    const file = await w.call('GET', `${url.pathname}${url.search}`, {});
    const text = gunzipSync(file.rawPayload).toString('utf8');
    return {
      gzip: file.rawPayload,
      text,
      lines: text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
    };
  }

  const importInto = (game: 'a' | 'b', kind: 'mongo' | 'data', body: Buffer | string, type: string) =>
    w.server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${games[game].apiKey}/${kind}/import`,
      headers: { ...games[game].jwt, 'content-type': type },
      payload: body,
    });

  beforeAll(async () => {
    w = await startImportWorld();
    for (const g of ['a', 'b'] as const) {
      const made = await w.newGame(`import ${g}`);
      games[g] = { ...made, jwt: await w.jwt(made.apiKey) };
    }
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5'])
      ids[name] = (
        await rs('a', 'RegistrationRequest', {
          userName: name,
          password: `pw-${name}`,
          displayName: `Dr ${name}`,
        })
      ).userId;
    const post = (name: string, eventKey: string, fields: Record<string, unknown>) =>
      rs('a', 'LogEventRequest', { eventKey, playerId: ids[name], ...fields });
    await post('p1', 'race', { TIME: 50, CAR: 'a' });
    await post('p2', 'race', { TIME: 40, CAR: 'b' });
    w.server.now.advance(1000);
    await post('p3', 'race', { TIME: 40, CAR: 'c' });
    await post('p4', 'race', { TIME: 45.5, CAR: 'd' });
    await post('p1', 'lap', { TIME: 30, COUNTRY: 'GB' });
    await post('p2', 'lap', { TIME: 20, COUNTRY: 'FR' });
    await post('p3', 'lap', { TIME: 25, COUNTRY: 'GB' });
    await post('p5', 'gain', { PTS: 7 });
    await post('p4', 'gain', { PTS: 9 });
    await post('p5', 'gain', { PTS: 3 });

    expect((await mongo('a', 'collection/items/runtime', {})).statusCode).toBe(200);
    expect((await mongo('a', 'collection/words/meta', {})).statusCode).toBe(200);
    const inserts: [string, unknown][] = [
      [
        'script.items',
        [
          { _id: 5, z: 1, a: { $numberLong: '9007199254740993' }, neg: { $numberLong: '-42' } },
          { _id: '5', d: 1.5, big: 1e300, n: null, arr: [1, { y: 2, x: 1 }, [[]], {}], t: true },
          {
            _id: { $oid: '5f1d7a2b9c8e4d3a2b1c0d9e' },
            oid: { $oid: '0123456789abcdef01234567' },
            when: { $date: '2030-05-06T07:08:09.123Z' },
            old: { $date: { $numberLong: '-62135596800000' } },
            nan: { $numberDouble: 'NaN' },
            inf: { $numberDouble: '-Infinity' },
            deep: { a: { b: { c: [{ d: { $numberLong: '1' } }] } } },
            text: 'é ✓ 𝄞 "quoted" \n new line',
          },
          { _id: { $numberLong: '123456789012' }, zeta: 1, alpha: 2 },
        ],
      ],
      ['meta.words', { _id: 'adjectives', list: ['big', 'small'] }],
      ['externalAuthentication', { _id: 'e1', provider: 'FB', player: ids.p1, accessToken: 'left out' }],
      ['challengeInstance', { _id: { $oid: '65a1b2c3d4e5f60718293a4b' }, state: 'RUNNING', turns: [1, 2] }],
    ];
    for (const [collection, docs] of inserts)
      expect((await mongo('a', `collection/${collection}/insert`, docs)).statusCode).toBe(200);
    const data = (type: string, id: string, body: unknown) =>
      w.call(
        'PUT',
        `/preview/restv2/game/${games.a.apiKey}/data/${type}/${encodeURIComponent(id)}`,
        games.a.jwt,
        body,
      );
    expect(
      (
        await data('Score', 's1', {
          data: { player: 'p1', points: 10, at: { $date: '2026-01-01T00:00:00Z' } },
        })
      ).statusCode,
    ).toBe(200);
    expect((await data('Score', 's1', { data: { player: 'p1', points: 12 } })).statusCode).toBe(200);
    expect(
      (
        await data('Score', 's2', {
          data: { player: 'p2', points: 1.25, big: { $numberLong: '77' } },
          ttl: 3600,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await data('Note', 'n/1 é', { data: { title: 'hello', nested: { list: [1, 'two'] } } })).statusCode,
    ).toBe(200);
  }, 120_000);
  afterAll(async () => w?.close());

  it('mongo: the gzip file as downloaded → 200 {imported, collections}; the second export equals the first, line by line', async () => {
    const a = await exported('a', 'mongo');
    expect(a.lines.length).toBeGreaterThan(20);
    const collections = new Set(a.lines.map((l) => l.collection));
    for (const c of [
      'player',
      'externalAuthentication',
      'challengeInstance',
      'script.items',
      'meta.words',
      'RACE_RT-runningTotal',
      'LAP_RT-runningTotal',
      'RACE-leaderboard',
      'LAPS-leaderboard',
      'DAY-leaderboard',
    ])
      expect(collections.has(c), c).toBe(true);
    const res = await importInto('b', 'mongo', a.gzip, 'application/gzip');
    expect(res.statusCode, res.body).toBe(200);
    const counts: Record<string, number> = {};
    for (const l of a.lines) counts[l.collection] = (counts[l.collection] ?? 0) + 1;
    expect(res.json()).toEqual({ imported: a.lines.length, collections: counts });
    const b = await exported('b', 'mongo');
    // Document by document: ids, longs ($numberLong), dates, ObjectIds, doubles, nested values and field order.
    expect(b.lines).toEqual(a.lines);
    expect(b.text).toBe(a.text);
  });

  it('mongo: the imported runtime and meta collections are listed as the first game lists them', async () => {
    const list = async (g: 'a' | 'b') => (await mongo(g, 'collections')).json();
    expect(await list('b')).toEqual(await list('a'));
  });

  it('leaderboards rank in the second game as in the first, pages, partitions and around a player alike', async () => {
    const board = (g: 'a' | 'b', code: string) =>
      rs(g, 'LeaderboardDataRequest', { leaderboardShortCode: code, entryCount: 100 });
    for (const code of ['RACE', 'LAPS', 'LAPS.COUNTRY.GB', 'LAPS.COUNTRY.FR', 'DAY']) {
      const a = await board('a', code);
      expect(a.data.length, code).toBeGreaterThan(0);
      expect(await board('b', code), code).toEqual(a);
    }
    const around = (g: 'a' | 'b') =>
      rs(g, 'AroundMeLeaderboardRequest', { leaderboardShortCode: 'RACE', playerId: ids.p3, entryCount: 1 });
    expect(await around('b')).toEqual(await around('a'));
    // The imported entries go on ranking: the same new events move them the same way in both games.
    w.server.now.advance(1000);
    for (const g of ['a', 'b'] as const) {
      await rs(g, 'LogEventRequest', { eventKey: 'race', playerId: ids.p4, TIME: 10, CAR: 'new' });
      await rs(g, 'LogEventRequest', { eventKey: 'race', playerId: ids.p5, TIME: 41, CAR: 'late' });
    }
    const a = await board('a', 'RACE');
    expect(a.data.map((e: Json) => e.userId).slice(0, 2)).toEqual([ids.p4, ids.p2]);
    expect(await board('b', 'RACE')).toEqual(a);
  });

  it('data: the NDJSON lines (not compressed) → 200; the second export equals the first (version, TTL, update time kept)', async () => {
    const a = await exported('a', 'data');
    expect(a.lines.map((l) => [l.type, l.id, l.version])).toEqual([
      ['Note', 'n/1 é', { $numberLong: '1' }],
      ['Score', 's1', { $numberLong: '2' }],
      ['Score', 's2', { $numberLong: '1' }],
    ]);
    const res = await importInto('b', 'data', a.text, 'application/x-ndjson');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ imported: 3, collections: { Note: 1, Score: 2 } });
    const b = await exported('b', 'data');
    expect(b.lines).toEqual(a.lines);
    const item = await w.call('GET', `/preview/restv2/game/${games.b.apiKey}/data/Score/s2`, games.b.jwt);
    expect(item.json()).toMatchObject({
      version: 1,
      data: { player: 'p2', points: 1.25, big: { $numberLong: '77' } },
    });
  });
});
