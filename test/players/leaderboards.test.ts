// Leaderboard management over HTTP: boards and partitions with entry counts and the next reset, top entries,
// entries around a player, deleting an entry and resetting now; bad input, permissions, audit entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Json, type PlayersWorld, startPlayersWorld } from './world.js';

// The test clock starts on Sunday 2026-11-22 12:00 UTC: the weekly period started Monday 16th, the next reset is
// Monday 23rd.
describe(`leaderboard management (${storeKind})`, () => {
  let w: PlayersWorld;
  const ids: Record<string, string> = {};
  const score = (name: string, SCORE: number, COUNTRY: string) =>
    w.ask('LogEventRequest', { playerId: ids[name], eventKey: 'score', SCORE, COUNTRY });
  const who = (entries: Json[]) =>
    entries.map((e: Json) => [Object.keys(ids).find((k) => ids[k] === e.userId), e.rank]);
  const counts = async () =>
    w.sql(
      `SELECT b.board_id, (SELECT count(*) FROM runtime_entries e WHERE e.board_id = b.board_id) AS entries,
              (SELECT coalesce(sum(n), 0) FROM runtime_rank_buckets r WHERE r.board_id = b.board_id) AS counted
       FROM runtime_boards b WHERE b.game_id = $1`,
      [w.apiKey],
    );

  beforeAll(async () => {
    w = await startPlayersWorld();
    for (const [name, s, c] of [
      ['ann', 90, 'GB'],
      ['ben', 80, 'GB'],
      ['cat', 70, 'FR'],
      ['dan', 60, 'GB'],
      ['eli', 50, 'FR'],
    ] as const) {
      ids[name] = await w.player(name);
      await score(name, s, c);
    }
  });
  afterAll(async () => w.close());

  it('list: every leaderboard with its boards (partitions), entry counts, period and next reset', async () => {
    const list = await w.okApi('GET', 'leaderboards');
    expect(list.map((l: Json) => l.shortCode)).toEqual(['HSLB', 'WEEKLB']);
    const [hs, weekly] = list;
    expect(hs).toMatchObject({ resetFrequency: 'NEVER', periodStart: null, nextReset: null });
    expect(hs.boards).toEqual([{ shortCode: 'HSLB', partition: '', partitionValues: {}, entries: 5 }]);
    expect(weekly).toMatchObject({
      collection: 'WEEKLB-leaderboard',
      resetFrequency: 'WEEKLY',
      periodStart: '2026-11-16T00:00:00.000Z',
      nextReset: '2026-11-23T00:00:00.000Z',
      partitionAttributes: ['COUNTRY'],
      morePartitions: false,
    });
    expect(weekly.boards.map((b: Json) => [b.shortCode, b.entries])).toEqual([
      ['WEEKLB', 5],
      ['WEEKLB.COUNTRY.FR', 2],
      ['WEEKLB.COUNTRY.GB', 3],
    ]);
    expect(await w.okApi('GET', 'leaderboards/WEEKLB')).toEqual(weekly);
    const missing = await w.api('GET', 'leaderboards/NOPE');
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'LEADERBOARD_NOT_IN_STAGE']);
    expect((await w.api('GET', 'leaderboards/WEEKLB.COUNTRY.GB')).statusCode).toBe(404);
    // Live runs nothing before a publish: no leaderboards there.
    expect(await w.okApi('GET', 'leaderboards', undefined, 'live')).toEqual([]);
  });

  it('top entries (paged) and the entries around a player, of a leaderboard or a partition', async () => {
    const top = await w.okApi('GET', 'leaderboards/HSLB/entries?count=3');
    expect(who(top.entries)).toEqual([
      ['ann', 1],
      ['ben', 2],
      ['cat', 3],
    ]);
    expect(top.entries[0]).toMatchObject({ userName: 'Dr ann', SCORE: 90 });
    const page = await w.okApi('GET', 'leaderboards/HSLB/entries?offset=3&count=3');
    expect(who(page.entries)).toEqual([
      ['dan', 4],
      ['eli', 5],
    ]);
    const gb = await w.okApi('GET', 'leaderboards/WEEKLB.COUNTRY.GB/entries');
    expect(who(gb.entries)).toEqual([
      ['ann', 1],
      ['ben', 2],
      ['dan', 3],
    ]);
    const around = await w.okApi('GET', `leaderboards/HSLB/around/${ids.cat}?count=1`);
    expect([around.playerId, who(around.entries)]).toEqual([
      ids.cat,
      [
        ['ben', 2],
        ['cat', 3],
        ['dan', 4],
      ],
    ]);
    // A banned player's entries are still read for an administrator.
    await w.okApi('POST', `players/${ids.cat}/ban`, {});
    expect((await w.okApi('GET', `leaderboards/HSLB/around/${ids.cat}?count=0`)).entries).toHaveLength(1);
    await w.okApi('POST', `players/${ids.cat}/unban`);
  });

  it('reads: bad input → 400 with details; unknown leaderboard or player → 404', async () => {
    for (const query of ['count=0', 'count=1001', 'offset=-1', 'offset=x', 'limit=5']) {
      const res = await w.api('GET', `leaderboards/HSLB/entries?${query}`);
      expect([query, res.statusCode, res.json().code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      expect(res.json().details.length).toBeGreaterThan(0);
    }
    const badAround = await w.api('GET', `leaderboards/HSLB/around/${ids.ann}?count=5000`);
    expect([badAround.statusCode, badAround.json().details[0].field]).toEqual([400, 'querystring.count']);
    const nobody = await w.api('GET', 'leaderboards/HSLB/around/0123456789abcdef01234567');
    expect([nobody.statusCode, nobody.json().code]).toEqual([404, 'PLAYER_NOT_FOUND']);
    const noBoard = await w.api('GET', 'leaderboards/NOPE/entries');
    expect([noBoard.statusCode, noBoard.json().code]).toEqual([404, 'LEADERBOARD_NOT_IN_STAGE']);
  });

  it('delete an entry (a cheater): gone from the board and its mirror, ranks close up, buckets exact; audited', async () => {
    const deleted = await w.okApi('DELETE', `leaderboards/HSLB/entries/${ids.ann}`);
    expect(deleted).toEqual({ leaderboardShortCode: 'HSLB', playerId: ids.ann, deleted: 1 });
    const top = await w.okApi('GET', 'leaderboards/HSLB/entries');
    expect(who(top.entries)).toEqual([
      ['ben', 1],
      ['cat', 2],
      ['dan', 3],
      ['eli', 4],
    ]);
    // Only that board: ann keeps her weekly entries.
    expect(who((await w.okApi('GET', 'leaderboards/WEEKLB.COUNTRY.GB/entries')).entries)[0]).toEqual([
      'ann',
      1,
    ]);
    const mirror = await w.find('HSLB-leaderboard', { query: { userId: ids.ann } });
    expect(mirror).toEqual([]);
    for (const c of await counts()) expect(Number(c.counted)).toBe(Number(c.entries));
    const [entry] = await w.audit('leaderboards.entry.delete');
    expect(entry).toMatchObject({
      action: 'leaderboards.entry.delete',
      target: `preview:HSLB/${ids.ann}`,
      after: { leaderboardShortCode: 'HSLB', playerId: ids.ann, values: [90, 1] },
    });
    const again = await w.api('DELETE', `leaderboards/HSLB/entries/${ids.ann}`);
    expect([again.statusCode, again.json().code]).toEqual([404, 'LEADERBOARD_ENTRY_NOT_FOUND']);
    expect((await w.api('DELETE', `leaderboards/NOPE/entries/${ids.ann}`)).statusCode).toBe(404);
    // Her next event makes a fresh entry.
    await score('ann', 10, 'GB');
    expect(who((await w.okApi('GET', 'leaderboards/HSLB/entries')).entries).at(-1)).toEqual(['ann', 5]);
  });

  it('reset now: a partition alone, then the whole leaderboard, with mirrors; audited', async () => {
    const fr = await w.okApi('POST', 'leaderboards/WEEKLB.COUNTRY.FR/reset');
    expect(fr).toEqual({ leaderboardShortCode: 'WEEKLB.COUNTRY.FR', boards: 1, entries: 2 });
    const after = await w.okApi('GET', 'leaderboards/WEEKLB');
    expect(after.boards.map((b: Json) => [b.shortCode, b.entries])).toEqual([
      ['WEEKLB', 5],
      ['WEEKLB.COUNTRY.GB', 3],
    ]);
    expect(await w.find('WEEKLB-leaderboard', { query: { COUNTRY: 'FR' } })).toEqual([]);
    const all = await w.okApi('POST', 'leaderboards/WEEKLB/reset');
    expect(all).toEqual({ leaderboardShortCode: 'WEEKLB', boards: 2, entries: 8 });
    expect((await w.okApi('GET', 'leaderboards/WEEKLB')).boards).toEqual([]);
    expect(await w.find('WEEKLB-leaderboard')).toEqual([]);
    expect((await w.okApi('GET', 'leaderboards/HSLB')).boards[0].entries).toBe(5);
    const [whole, part] = await w.audit('leaderboards.reset');
    expect([whole.target, part.target]).toEqual(['preview:WEEKLB', 'preview:WEEKLB.COUNTRY.FR']);
    expect(whole.after).toEqual({ leaderboardShortCode: 'WEEKLB', boards: 2, entries: 8 });
    // The next event starts it afresh.
    await score('eli', 55, 'FR');
    expect(who((await w.okApi('GET', 'leaderboards/WEEKLB.COUNTRY.FR/entries')).entries)).toEqual([
      ['eli', 1],
    ]);
    expect((await w.api('POST', 'leaderboards/NOPE/reset')).statusCode).toBe(404);
  });

  it('permissions: no nosql.leaderboards → 403; level 1 reads but may not write; expired JWT → 401', async () => {
    const routes: ['GET' | 'POST' | 'DELETE', string][] = [
      ['GET', 'leaderboards'],
      ['GET', 'leaderboards/HSLB'],
      ['GET', 'leaderboards/HSLB/entries'],
      ['GET', `leaderboards/HSLB/around/${ids.ben}`],
      ['DELETE', `leaderboards/HSLB/entries/${ids.ben}`],
      ['POST', 'leaderboards/HSLB/reset'],
    ];
    for (const [method, path] of routes) {
      const none = await w.api(method, path, { as: w.jwt.none });
      expect([method, path, none.statusCode, none.json().code]).toEqual([
        method,
        path,
        403,
        'PERMISSION_DENIED',
      ]);
      const expired = await w.api(method, path, { as: w.jwt.expired });
      expect([method, path, expired.statusCode, expired.json().code]).toEqual([
        method,
        path,
        401,
        'TOKEN_EXPIRED',
      ]);
      const reader = await w.api(method, path, { as: w.jwt.reader });
      expect([method, path, reader.statusCode]).toEqual([method, path, method === 'GET' ? 200 : 403]);
    }
    expect((await w.okApi('GET', 'leaderboards/HSLB')).boards[0].entries).toBe(5);
  });
});
