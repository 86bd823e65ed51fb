// Player management over HTTP: search, read, edit, ban/unban (the runtime refuses a banned player), reset
// sessions, erase (nothing of the player left in any table) and export; bad input, permissions, audit entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Json, type PlayersWorld, startPlayersWorld } from './world.js';

describe(`player management (${storeKind})`, () => {
  let w: PlayersWorld;
  const ids: Record<string, string> = {};
  const id = (name: string) => ids[name] as string;

  beforeAll(async () => {
    w = await startPlayersWorld();
    for (const name of ['ada', 'adam', 'bob', 'zed']) ids[name] = await w.player(name);
    const device = await w.ask('DeviceAuthenticationRequest', {
      deviceId: 'device-1',
      deviceOS: 'IOS',
      displayName: 'Pocket',
    });
    ids.device = device.userId;
    // An external id, set as the platform's connect requests would (through the nosql API).
    await w.api('POST', 'mongo/collection/player/update', {
      body: { query: { _id: { $oid: ids.bob } }, update: { $set: { externalIds: { FB: 'fb-42' } } } },
    });
  });
  afterAll(async () => w.close());

  const names = (answer: Json) => answer.players.map((p: Json) => p.userName ?? p.displayName);

  it('search: user name prefix in any case, display name, id, external id; paged with `more`', async () => {
    expect(names(await w.okApi('GET', 'players?q=AD&by=userName'))).toEqual(['ada', 'adam']);
    expect(names(await w.okApi('GET', 'players?q=dr%20b&by=displayName'))).toEqual(['bob']);
    expect(names(await w.okApi('GET', `players?q=${ids.zed}&by=id`))).toEqual(['zed']);
    expect(names(await w.okApi('GET', 'players?q=fb-42&by=externalId'))).toEqual(['bob']);
    expect(names(await w.okApi('GET', 'players?q=pock'))).toEqual(['Pocket']);
    const first = await w.okApi('GET', 'players?q=ad&limit=1');
    expect([names(first), first.more]).toEqual([['ada'], true]);
    const second = await w.okApi('GET', 'players?q=ad&limit=1&skip=1');
    expect([names(second), second.more]).toEqual([['adam'], false]);
    expect(first.players[0]).toMatchObject({ id: ids.ada, displayName: 'Dr ada', banned: false });
  });

  it('search: bad input → 400 VALIDATION_FAILED naming the field', async () => {
    for (const [query, field] of [
      ['by=userName', 'q'],
      ['q=a&limit=1000', 'limit'],
      ['q=a&limit=0', 'limit'],
      ['q=a&skip=-1', 'skip'],
      ['q=a&by=email', 'by'],
      ['q=a&extra=1', 'extra'],
    ] as const) {
      const res = await w.api('GET', `players?${query}`);
      expect([query, res.statusCode, res.json().code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      expect(
        res
          .json()
          .details.map((d: Json) => d.field)
          .join(' '),
      ).toContain(field);
    }
  });

  it('read one: currencies, scriptData, privateData, external ids, created, last seen; unknown → 404', async () => {
    const before = await w.okApi('GET', `players/${ids.bob}`);
    expect(before).toMatchObject({
      id: ids.bob,
      userName: 'bob',
      displayName: 'Dr bob',
      currencies: { currency1: 0, currency6: 0 },
      scriptData: {},
      privateData: {},
      externalIds: { FB: 'fb-42' },
      ban: null,
    });
    expect(Date.parse(before.created)).toBeGreaterThan(0);
    w.server.now.advance(5000);
    await w.ask('AuthenticationRequest', { userName: 'bob', password: 'pw-bob' });
    const after = await w.okApi('GET', `players/${ids.bob}`);
    expect(Date.parse(after.lastSeen)).toBe(w.server.now.value);
    expect(after).not.toHaveProperty('password');
    const missing = await w.api('GET', 'players/0123456789abcdef01234567');
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'PLAYER_NOT_FOUND']);
    // Players are per stage: the Preview id is unknown in Live.
    expect((await w.api('GET', `players/${ids.bob}`, { stage: 'live' })).statusCode).toBe(404);
  });

  it('edit: display name, currencies and scriptData, seen by the runtime; audited with before and after', async () => {
    const edited = await w.okApi('PATCH', `players/${ids.ada}`, {
      displayName: 'Ada L.',
      currencies: { currency1: 150, currency3: 7 },
      scriptData: { level: 8, since: { $date: '2026-01-01T00:00:00Z' } },
    });
    expect(edited).toMatchObject({
      displayName: 'Ada L.',
      currencies: { currency1: 150, currency2: 0, currency3: 7 },
      scriptData: { level: 8, since: { $date: '2026-01-01T00:00:00.000Z' } },
    });
    const details = await w.ask('AccountDetailsRequest', { playerId: ids.ada });
    expect([details.displayName, details.currency1, details.currency3]).toEqual(['Ada L.', 150, 7]);
    const [entry] = await w.audit('players.update');
    expect(entry).toMatchObject({
      action: 'players.update',
      target: `preview:${ids.ada}`,
      before: { displayName: 'Dr ada', currency1: 0, currency3: 0, scriptData: {} },
      after: { displayName: 'Ada L.', currency1: 150, currency3: 7 },
    });
    expect(entry.actor).toMatch(/^admin-/);
  });

  it('edit: bad input → 400 with details; nothing written', async () => {
    for (const body of [
      {},
      { currencies: { currency1: -1 } },
      { currencies: { currency1: 1.5 } },
      { currencies: { currency7: 1 } },
      { displayName: '' },
      { scriptData: [1] },
      { nickname: 'x' },
    ]) {
      const res = await w.api('PATCH', `players/${ids.adam}`, { body });
      expect([JSON.stringify(body), res.statusCode, res.json().code]).toEqual([
        JSON.stringify(body),
        400,
        'VALIDATION_FAILED',
      ]);
      expect(res.json().details.length).toBeGreaterThan(0);
    }
    const dollar = await w.api('PATCH', `players/${ids.adam}`, { body: { scriptData: { $set: 1 } } });
    expect(dollar.statusCode).toBe(400);
    const notJson = await w.server.app.inject({
      method: 'PATCH',
      url: `/preview/restv2/game/${w.apiKey}/players/${ids.adam}`,
      headers: { ...w.jwt.owner, 'content-type': 'application/json' },
      payload: '{"displayName":',
    });
    expect(notJson.statusCode).toBe(400);
    expect(await w.okApi('GET', `players/${ids.adam}`)).toMatchObject({
      displayName: 'Dr adam',
      currencies: { currency1: 0 },
    });
    const missing = await w.api('PATCH', 'players/nobody', { body: { displayName: 'x' } });
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'PLAYER_NOT_FOUND']);
  });

  it('edit: wrong JSON types → 400 VALIDATION_FAILED naming the field, never coerced; nothing written', async () => {
    const cases: [unknown, string][] = [
      [{ currencies: { currency1: '150' } }, 'body.currencies.currency1'],
      [{ currencies: { currency1: null } }, 'body.currencies.currency1'],
      [{ currencies: { currency1: true } }, 'body.currencies.currency1'],
      [{ displayName: 5 }, 'body.displayName'],
    ];
    for (const [body, field] of cases) {
      const res = await w.api('PATCH', `players/${ids.adam}`, { body });
      expect([JSON.stringify(body), res.statusCode, res.json().code]).toEqual([
        JSON.stringify(body),
        400,
        'VALIDATION_FAILED',
      ]);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await w.okApi('GET', `players/${ids.adam}`)).toMatchObject({
      displayName: 'Dr adam',
      currencies: { currency1: 0 },
    });
  });

  it('ban → authentication answers DETAILS: LOCKED and the player’s requests are refused; unban restores', async () => {
    const auth = () => w.ask('AuthenticationRequest', { userName: 'zed', password: 'pw-zed' });
    expect((await auth()).userId).toBe(ids.zed);
    const banned = await w.okApi('POST', `players/${ids.zed}/ban`, { reason: 'cheating' });
    expect(banned).toMatchObject({
      banned: true,
      ban: { reason: 'cheating', by: expect.stringMatching(/^admin-/) },
    });
    expect((await auth()).error).toEqual({ DETAILS: 'LOCKED' });
    // A wrong password answers as any wrong password does.
    const wrong = await w.ask('AuthenticationRequest', { userName: 'zed', password: 'nope' });
    expect(wrong.error).toEqual({ DETAILS: 'UNRECOGNISED' });
    expect(
      (await w.ask('LogEventRequest', { playerId: ids.zed, eventKey: 'score', SCORE: 5 })).error,
    ).toEqual({
      playerId: 'LOCKED',
    });
    expect((await w.ask('AccountDetailsRequest', { playerId: ids.zed })).error).toEqual({
      playerId: 'LOCKED',
    });
    const around = await w.ask('AroundMeLeaderboardRequest', {
      playerId: ids.zed,
      leaderboardShortCode: 'HSLB',
    });
    expect(around.error).toEqual({ playerId: 'LOCKED' });
    expect((await w.okApi('GET', `players?q=zed&by=userName`)).players[0].banned).toBe(true);

    await w.okApi('POST', `players/${ids.zed}/unban`);
    expect((await auth()).userId).toBe(ids.zed);
    expect(
      (await w.ask('LogEventRequest', { playerId: ids.zed, eventKey: 'score', SCORE: 5 })).error,
    ).toBeUndefined();
    const [unban, ban] = await w.audit('players');
    expect([unban.action, ban.action]).toEqual(['players.unban', 'players.ban']);
    expect(ban).toMatchObject({ before: { ban: null }, after: { ban: { reason: 'cheating' } } });
    expect(unban).toMatchObject({ target: `preview:${ids.zed}`, after: { ban: null } });
  });

  it('ban a device player → DeviceAuthenticationRequest answers DETAILS: LOCKED; unban restores', async () => {
    const login = () => w.ask('DeviceAuthenticationRequest', { deviceId: 'device-1', deviceOS: 'IOS' });
    await w.okApi('POST', `players/${ids.device}/ban`, {});
    expect((await login()).error).toEqual({ DETAILS: 'LOCKED' });
    await w.okApi('POST', `players/${ids.device}/unban`);
    expect(await login()).toMatchObject({ userId: ids.device, newPlayer: false });
  });

  it('ban: bad body → 400; unknown player → 404', async () => {
    const bad = await w.api('POST', `players/${ids.adam}/ban`, { body: { reason: 'x'.repeat(1001) } });
    expect([bad.statusCode, bad.json().code, bad.json().details[0].field]).toEqual([
      400,
      'VALIDATION_FAILED',
      'body.reason',
    ]);
    const extra = await w.api('POST', `players/${ids.adam}/ban`, { body: { until: 'tomorrow' } });
    expect(extra.statusCode).toBe(400);
    expect((await w.api('POST', 'players/nobody/ban', { body: {} })).statusCode).toBe(404);
    expect((await w.api('POST', 'players/nobody/unban')).statusCode).toBe(404);
    expect((await w.okApi('GET', `players/${ids.adam}`)).banned).toBe(false);
  });

  it('reset sessions: clears the login lockout of the player’s name; audited', async () => {
    for (let i = 0; i < 5; i++) await w.ask('AuthenticationRequest', { userName: 'adam', password: 'bad' });
    const locked = await w.ask('AuthenticationRequest', { userName: 'adam', password: 'pw-adam' });
    expect(locked.error).toEqual({ DETAILS: 'LOCKED' });
    const reset = await w.okApi('POST', `players/${ids.adam}/sessions/reset`);
    expect(reset).toEqual({ storedSessions: 0, lockoutCleared: true });
    expect((await w.ask('AuthenticationRequest', { userName: 'adam', password: 'pw-adam' })).userId).toBe(
      ids.adam,
    );
    const [entry] = await w.audit('players.sessions.reset');
    expect(entry).toMatchObject({ target: `preview:${ids.adam}`, after: { lockoutCleared: true } });
    expect((await w.api('POST', 'players/nobody/sessions/reset')).statusCode).toBe(404);
  });

  it('permissions: no nosql.players → 403 on every route; level 1 reads but may not write; expired JWT → 401', async () => {
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown][] = [
      ['GET', 'players?q=a', undefined],
      ['GET', `players/${ids.adam}`, undefined],
      ['GET', `players/${ids.adam}/export`, undefined],
      ['PATCH', `players/${ids.adam}`, { displayName: 'x' }],
      ['POST', `players/${ids.adam}/ban`, {}],
      ['POST', `players/${ids.adam}/unban`, undefined],
      ['POST', `players/${ids.adam}/sessions/reset`, undefined],
      ['DELETE', `players/${ids.adam}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const none = await w.api(method, path, { as: w.jwt.none, body });
      expect([method, path, none.statusCode, none.json().code]).toEqual([
        method,
        path,
        403,
        'PERMISSION_DENIED',
      ]);
      const expired = await w.api(method, path, { as: w.jwt.expired, body });
      expect([method, path, expired.statusCode, expired.json().code]).toEqual([
        method,
        path,
        401,
        'TOKEN_EXPIRED',
      ]);
      const anonymous = await w.api(method, path, { as: {}, body });
      expect([method, path, anonymous.statusCode]).toEqual([method, path, 401]);
      const reader = await w.api(method, path, { as: w.jwt.reader, body });
      expect([method, path, reader.statusCode]).toEqual([method, path, method === 'GET' ? 200 : 403]);
    }
    expect((await w.okApi('GET', `players/${ids.adam}`)).displayName).toBe('Dr adam');
  });

  describe('erase and export', () => {
    const score = (name: string, SCORE: number, COUNTRY = 'GB') =>
      w.ask('LogEventRequest', { playerId: ids[name], eventKey: 'score', SCORE, COUNTRY });

    beforeAll(async () => {
      ids.eve = await w.player('eve');
      ids.fay = await w.player('fay');
      await score('eve', 50);
      await score('eve', 70, 'FR');
      await score('fay', 60);
      for (const who of [ids.eve, ids.fay]) {
        const put = await w.api('PUT', `data/profile/${who}`, { body: { data: { bio: `of ${who}` } } });
        expect(put.statusCode).toBe(200);
      }
      for (let i = 0; i < 2; i++) await w.ask('AuthenticationRequest', { userName: 'eve', password: 'bad' });
    });

    /** Rows anywhere that hold the player: documents, entries, devices, login failures, data items. */
    const traces = async (id: string, userName: string) => ({
      documents: (
        await w.sql(
          `SELECT collection FROM nosql_documents WHERE game_id = $1 AND (id LIKE '%' || $2 || '%' OR doc::text LIKE '%' || $2 || '%') ORDER BY collection`,
          [w.apiKey, id],
        )
      ).map((r) => r.collection),
      entries: (await w.sql('SELECT board_id FROM runtime_entries WHERE player_id = $1', [id])).length,
      devices: (
        await w.sql('SELECT 1 FROM runtime_devices WHERE game_id = $1 AND player_id = $2', [w.apiKey, id])
      ).length,
      failures: (
        await w.sql('SELECT 1 FROM runtime_login_failures WHERE game_id = $1 AND user_name = $2', [
          w.apiKey,
          userName,
        ])
      ).length,
      items: (await w.sql('SELECT 1 FROM data_items WHERE game_id = $1 AND item_id = $2', [w.apiKey, id]))
        .length,
    });

    it('export: everything held about the player as one JSON document, the password hash withheld; audited', async () => {
      const res = await w.api('GET', `players/${ids.eve}/export`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="player-${ids.eve}.json"`);
      const file = res.json();
      expect(file).toMatchObject({
        playerId: ids.eve,
        stage: 'preview',
        passwordSet: true,
        player: { userName: 'eve', displayName: 'Dr eve', _id: { $oid: ids.eve } },
        loginFailures: { failures: 2 },
        dataItems: [{ type: 'profile', id: ids.eve, data: { bio: `of ${ids.eve}` } }],
      });
      expect(file.player).not.toHaveProperty('password');
      expect(res.body).not.toContain('scrypt');
      expect(file.runningTotals.map((r: Json) => r.collection)).toEqual([
        'HS-runningTotal',
        'HSC-runningTotal',
        'HSC-runningTotal',
      ]);
      expect(file.runningTotals[0].document).toMatchObject({ userId: ids.eve, SCORE: 70 });
      expect(file.leaderboardEntries.map((e: Json) => `${e.leaderboard}.${e.partition}`).sort()).toEqual([
        'HSLB.',
        'WEEKLB.',
        'WEEKLB.COUNTRY.FR',
        'WEEKLB.COUNTRY.GB',
      ]);
      expect(file.leaderboardDocuments).toHaveLength(4);
      const [entry] = await w.audit('players.export');
      expect(entry).toMatchObject({ action: 'players.export', target: `preview:${ids.eve}` });
      expect((await w.api('GET', 'players/nobody/export')).statusCode).toBe(404);
    });

    it('erase: nothing of the player is left in any table, others untouched, ranks recounted; audited without the data', async () => {
      const before = await traces(id('eve'), 'eve');
      expect(before.documents).toEqual(
        expect.arrayContaining([
          'HS-runningTotal',
          'HSC-runningTotal',
          'HSLB-leaderboard',
          'WEEKLB-leaderboard',
          'player',
        ]),
      );
      expect([before.entries, before.failures, before.items]).toEqual([4, 1, 1]);
      const fayBefore = await traces(id('fay'), 'fay');

      const erased = await w.okApi('DELETE', `players/${ids.eve}`);
      expect(erased).toEqual({
        player: 1,
        leaderboardEntries: 4,
        leaderboardDocuments: 0,
        runningTotals: 3,
        dataItems: 1,
        devices: 0,
        loginFailures: 1,
      });
      expect(await traces(id('eve'), 'eve')).toEqual({
        documents: [],
        entries: 0,
        devices: 0,
        failures: 0,
        items: 0,
      });
      expect(await traces(id('fay'), 'fay')).toEqual(fayBefore);
      // The rank buckets count exactly the entries left.
      const counts = await w.sql(
        `SELECT b.board_id, (SELECT count(*) FROM runtime_entries e WHERE e.board_id = b.board_id) AS entries,
                (SELECT coalesce(sum(n), 0) FROM runtime_rank_buckets r WHERE r.board_id = b.board_id) AS counted
         FROM runtime_boards b WHERE b.game_id = $1`,
        [w.apiKey],
      );
      for (const c of counts) expect(Number(c.counted)).toBe(Number(c.entries));
      const board = await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'WEEKLB.COUNTRY.GB' });
      expect(board.data.map((e: Json) => [e.userId, e.rank])).toEqual([[ids.fay, 1]]);
      const [entry] = await w.audit('players.erase');
      expect(entry).toMatchObject({
        target: `preview:${ids.eve}`,
        after: { player: 1, leaderboardEntries: 4 },
      });
      expect(JSON.stringify(entry)).not.toContain('Dr eve');
      // Gone: reads 404, authentication unrecognised, and the name is free again.
      expect((await w.api('GET', `players/${ids.eve}`)).statusCode).toBe(404);
      expect((await w.ask('AuthenticationRequest', { userName: 'eve', password: 'pw-eve' })).error).toEqual({
        DETAILS: 'UNRECOGNISED',
      });
      expect((await w.api('DELETE', `players/${ids.eve}`)).statusCode).toBe(404);
    });

    it('erase while the player’s events arrive: each event waits for the erase or is refused; nothing is left', async () => {
      ids.gus = await w.player('gus');
      await score('gus', 10);
      const events = Array.from({ length: 40 }, (_, i) => score('gus', 20 + i, i % 2 ? 'GB' : 'FR'));
      // The erase starts while the events are under way, some past their player check.
      await new Promise((r) => setTimeout(r, 15));
      const [erased, ...answers] = await Promise.all([w.okApi('DELETE', `players/${ids.gus}`), ...events]);
      expect(erased.player).toBe(1);
      for (const a of answers) if (a.error) expect(a.error).toEqual({ playerId: 'UNRECOGNISED' });
      expect(await traces(id('gus'), 'gus')).toEqual({
        documents: [],
        entries: 0,
        devices: 0,
        failures: 0,
        items: 0,
      });
      for (const c of await w.sql(
        `SELECT (SELECT count(*) FROM runtime_entries e WHERE e.board_id = b.board_id) AS entries,
                (SELECT coalesce(sum(n), 0) FROM runtime_rank_buckets r WHERE r.board_id = b.board_id) AS counted
         FROM runtime_boards b WHERE b.game_id = $1`,
        [w.apiKey],
      ))
        expect(Number(c.counted)).toBe(Number(c.entries));
    });

    it('erase a device player: its device row goes, the device’s next login makes a new player', async () => {
      const erased = await w.okApi('DELETE', `players/${ids.device}`);
      expect(erased.devices).toBe(1);
      expect(await traces(id('device'), '')).toMatchObject({ documents: [], devices: 0 });
      const again = await w.ask('DeviceAuthenticationRequest', { deviceId: 'device-1', deviceOS: 'IOS' });
      expect(again.newPlayer).toBe(true);
      expect(again.userId).not.toBe(ids.device);
    });
  });

  it('Live has its own players: the same routes under /live', async () => {
    await w.publish();
    const id = await w.player('liveone', 'live');
    expect(names(await w.okApi('GET', 'players?q=liveone', undefined, 'live'))).toEqual(['liveone']);
    expect(names(await w.okApi('GET', 'players?q=liveone'))).toEqual([]);
    await w.okApi('POST', `players/${id}/ban`, {}, 'live');
    const auth = await w.ask(
      'AuthenticationRequest',
      { userName: 'liveone', password: 'pw-liveone' },
      'live',
    );
    expect(auth.error).toEqual({ DETAILS: 'LOCKED' });
    const [entry] = await w.audit('players.ban');
    expect(entry.target).toBe(`live:${id}`);
  });
});
