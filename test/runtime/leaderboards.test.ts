// Leaderboards through the server: order, ties, pages, around a player, partitions, resets and the nosql view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Json, type RuntimeWorld, startRuntimeWorld } from './world.js';

const ref = (event: string, attribute: string) => ({ '@ref': `/~events/${event}/~attributes/${attribute}` });
const field = (rt: string, collector: string, sort: 'ASC' | 'DESC') => ({
  runningTotal: { '@ref': `/~runningTotals/${rt}` },
  collector,
  sort,
});
const attribute = (shortCode: string, dataType: string, agg: string, defaultValue?: unknown) => ({
  name: shortCode,
  shortCode,
  dataType,
  defaultAggregationType: agg,
  ...(defaultValue === undefined ? {} : { defaultValue }),
});

const CONFIG = {
  '~events': [
    {
      name: 'Race',
      shortCode: 'race',
      description: '',
      '~attributes': [attribute('TIME', 'number', 'MIN'), attribute('CAR', 'string', 'SUPPLEMENTAL', 'none')],
    },
    {
      name: 'Lap',
      shortCode: 'lap',
      description: '',
      '~attributes': [attribute('TIME', 'number', 'MIN'), attribute('COUNTRY', 'string', 'GROUPED', 'XX')],
    },
    { name: 'Gain', shortCode: 'gain', description: '', '~attributes': [attribute('PTS', 'int', 'SUM')] },
  ],
  '~runningTotals': [
    {
      shortCode: 'RACE_RT',
      name: 'Race',
      event: { '@ref': '/~events/race' },
      collectors: [
        { attribute: ref('race', 'TIME'), calculation: 'MIN' },
        { attribute: ref('race', 'CAR'), calculation: 'SUPPLEMENTAL' },
      ],
    },
    {
      shortCode: 'LAP_RT',
      name: 'Lap',
      event: { '@ref': '/~events/lap' },
      groupBy: [ref('lap', 'COUNTRY')],
      collectors: [{ attribute: ref('lap', 'TIME'), calculation: 'MIN' }],
    },
    {
      shortCode: 'GAIN_RT',
      name: 'Gain',
      event: { '@ref': '/~events/gain' },
      collectors: [{ attribute: ref('gain', 'PTS'), calculation: 'SUM' }],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'RACE',
      name: 'Race',
      fields: [field('RACE_RT', 'TIME', 'ASC'), field('RACE_RT', 'CAR', 'ASC')],
    },
    {
      shortCode: 'LAPS',
      name: 'Laps',
      fields: [field('LAP_RT', 'TIME', 'ASC')],
      partitions: [{ attribute: 'COUNTRY' }],
    },
    { shortCode: 'DAY', name: 'Day', fields: [field('GAIN_RT', 'PTS', 'DESC')], resetFrequency: 'DAILY' },
    { shortCode: 'WEEK', name: 'Week', fields: [field('GAIN_RT', 'PTS', 'DESC')], resetFrequency: 'WEEKLY' },
  ],
};

const HOUR = 3_600_000;

describe(`leaderboards (${storeKind})`, () => {
  let w: RuntimeWorld;
  const ids: Record<string, string> = {};
  const post = (name: string, eventKey: string, fields: Record<string, unknown>) =>
    w.ask('LogEventRequest', { eventKey, playerId: ids[name], ...fields });
  const board = async (code: string, extra: Record<string, unknown> = {}) =>
    w.ask('LeaderboardDataRequest', { leaderboardShortCode: code, entryCount: 100, ...extra });
  const who = (entries: Json[]) =>
    entries.map((e: Json) => [Object.keys(ids).find((k) => ids[k] === e.userId), e.rank]);

  beforeAll(async () => {
    w = await startRuntimeWorld(CONFIG);
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5', 'q1', 'q2', 'q3', 'r1', 'r2', 'idle'])
      ids[name] = await w.player(name);
    // Races: p2 and p4 tie on 40, p1 p3 p5 on 50; p3 p4 p5 reach theirs a second later than p1 p2.
    await post('p1', 'race', { TIME: 50, CAR: 'a' });
    await post('p2', 'race', { TIME: 40, CAR: 'b' });
    w.server.now.advance(1000);
    for (const [name, time] of [
      ['p3', 50],
      ['p4', 40],
      ['p5', 50],
    ] as const)
      await post(name, 'race', { TIME: time, CAR: name });
  });
  afterAll(async () => w.close());

  it('ASC order; a tie goes to whoever reached the value first, then to the smaller player id; ranks 1..n', async () => {
    const { data } = await board('RACE');
    const lateTie = [ids.p3, ids.p5].sort().map((id) => Object.keys(ids).find((k) => ids[k] === id));
    expect(who(data)).toEqual([
      ['p2', 1],
      ['p4', 2],
      ['p1', 3],
      [lateTie[0], 4],
      [lateTie[1], 5],
    ]);
    expect(data[0]).toEqual({
      userId: ids.p2,
      userName: 'Dr p2',
      TIME: 40,
      CAR: 'b',
      when: '2026-11-22T12:00:00.000Z',
      rank: 1,
    });
  });

  it('a worse value changes nothing (SUPPLEMENTAL and `when` kept); a better one moves the entry and replaces both', async () => {
    w.server.now.advance(1000);
    await post('p1', 'race', { TIME: 60, CAR: 'z' });
    expect((await board('RACE')).data[2]).toMatchObject({
      userId: ids.p1,
      TIME: 50,
      CAR: 'a',
      when: '2026-11-22T12:00:00.000Z',
    });
    await post('p1', 'race', { TIME: 30, CAR: 'y' });
    const { data } = await board('RACE');
    expect(data[0]).toMatchObject({
      userId: ids.p1,
      TIME: 30,
      CAR: 'y',
      when: '2026-11-22T12:00:02.000Z',
      rank: 1,
    });
    expect(who(data).map(([, rank]) => rank)).toEqual([1, 2, 3, 4, 5]);
  });

  it('offset and entryCount page by rank; includeFirst and includeLast add the head and tail', async () => {
    const all = (await board('RACE')).data;
    const page = await board('RACE', { offset: 1, entryCount: 2, includeFirst: 1, includeLast: 2 });
    expect(page.data).toEqual(all.slice(1, 3));
    expect(page.first).toEqual(all.slice(0, 1));
    expect(page.last).toEqual(all.slice(3, 5));
    expect(page.leaderboardShortCode).toBe('RACE');
    expect((await board('RACE', { offset: 5 })).data).toEqual([]);
  });

  it('AroundMe → up to entryCount entries ahead and behind the player, with exact ranks', async () => {
    const all = (await board('RACE')).data;
    const third = all[2];
    const around = await w.ask('AroundMeLeaderboardRequest', {
      leaderboardShortCode: 'RACE',
      playerId: third.userId,
      entryCount: 1,
    });
    expect(around.data).toEqual(all.slice(1, 4));
    const top = await w.ask('AroundMeLeaderboardRequest', {
      leaderboardShortCode: 'RACE',
      playerId: ids.p1,
      entryCount: 2,
    });
    expect(top.data).toEqual(all.slice(0, 3));
    const none = await w.ask('AroundMeLeaderboardRequest', {
      leaderboardShortCode: 'RACE',
      playerId: ids.idle,
    });
    expect(none).toEqual({
      '@class': '.AroundMeLeaderboardResponse',
      data: [],
      leaderboardShortCode: 'RACE',
    });
  });

  it('bad leaderboard requests → REQUIRED / INVALID per field', async () => {
    expect((await w.ask('LeaderboardDataRequest', {})).error).toEqual({ leaderboardShortCode: 'REQUIRED' });
    expect((await board('NOPE')).error).toEqual({ leaderboardShortCode: 'INVALID' });
    expect((await board('RACE.COUNTRY.GB')).error).toEqual({ leaderboardShortCode: 'INVALID' });
    expect((await board('RACE', { entryCount: 1001 })).error).toEqual({ entryCount: 'INVALID' });
    expect((await board('RACE', { offset: -1 })).error).toEqual({ offset: 'INVALID' });
    expect((await board('RACE', { includeLast: 'x' })).error).toEqual({ includeLast: 'INVALID' });
    const around = await w.ask('AroundMeLeaderboardRequest', { leaderboardShortCode: 'RACE' });
    expect(around.error).toEqual({ playerId: 'REQUIRED' });
  });

  it('partitions: LB.ATTR.VALUE made on first use with that value’s entries; the whole leaderboard has them all', async () => {
    await post('q1', 'lap', { TIME: 30, COUNTRY: 'GB' });
    await post('q2', 'lap', { TIME: 20, COUNTRY: 'FR' });
    await post('q3', 'lap', { TIME: 25, COUNTRY: 'GB' });
    await post('q1', 'lap', { TIME: 10, COUNTRY: 'FR' });
    expect(who((await board('LAPS')).data)).toEqual([
      ['q1', 1],
      ['q2', 2],
      ['q3', 3],
    ]);
    const gb = await board('LAPS.COUNTRY.GB');
    expect(who(gb.data)).toEqual([
      ['q3', 1],
      ['q1', 2],
    ]);
    expect(gb.data[1]).toMatchObject({ TIME: 30, COUNTRY: 'GB' });
    expect(gb.leaderboardShortCode).toBe('LAPS.COUNTRY.GB');
    expect(who((await board('LAPS.COUNTRY.FR')).data)).toEqual([
      ['q1', 1],
      ['q2', 2],
    ]);
    expect((await board('LAPS.COUNTRY.DE')).data).toEqual([]);
    expect((await board('LAPS.CITY.X')).error).toEqual({ leaderboardShortCode: 'INVALID' });
    const around = await w.ask('AroundMeLeaderboardRequest', {
      leaderboardShortCode: 'LAPS.COUNTRY.GB',
      playerId: ids.q1,
    });
    expect(who(around.data)).toEqual([
      ['q3', 1],
      ['q1', 2],
    ]);
  });

  it('the <LB>-leaderboard collection mirrors every board’s entries, without rank; find and count work', async () => {
    const docs = await w.find('LAPS-leaderboard', {
      query: { leaderboardShortCode: 'LAPS.COUNTRY.GB' },
      sort: { TIME: 1 },
    });
    expect(docs.map(({ _id, when, ...rest }: Json) => [typeof _id.$oid, typeof when.$date, rest])).toEqual([
      [
        'string',
        'string',
        {
          leaderboardShortCode: 'LAPS.COUNTRY.GB',
          userId: ids.q3,
          userName: 'Dr q3',
          COUNTRY: 'GB',
          TIME: 25,
        },
      ],
      [
        'string',
        'string',
        {
          leaderboardShortCode: 'LAPS.COUNTRY.GB',
          userId: ids.q1,
          userName: 'Dr q1',
          COUNTRY: 'GB',
          TIME: 30,
        },
      ],
    ]);
    expect(await w.find('LAPS-leaderboard', { query: { leaderboardShortCode: 'LAPS' } })).toHaveLength(3);
  });

  it('DAILY resets at 00:00 UTC, WEEKLY on Monday 00:00 UTC; running totals never reset', async () => {
    // From Sunday noon to Monday noon: a new day and a new week.
    w.server.now.advance(24 * HOUR);
    await post('r1', 'gain', { PTS: 5 });
    await post('r2', 'gain', { PTS: 3 });
    await post('r1', 'gain', { PTS: 2 });
    expect(who((await board('DAY')).data)).toEqual([
      ['r1', 1],
      ['r2', 2],
    ]);
    w.server.now.advance(24 * HOUR);
    expect((await board('DAY')).data).toEqual([]);
    await post('r2', 'gain', { PTS: 4 });
    expect((await board('DAY')).data).toMatchObject([{ userId: ids.r2, PTS: 4, rank: 1 }]);
    // The week goes on: r2 ties r1 on 7, and r1 got there first.
    expect((await board('WEEK')).data).toMatchObject([
      { userId: ids.r1, PTS: 7, rank: 1 },
      { userId: ids.r2, PTS: 7, rank: 2 },
    ]);
    expect(await w.find('DAY-leaderboard')).toMatchObject([{ userId: ids.r2, PTS: 4 }]);
    expect(await w.find('GAIN_RT-runningTotal', { query: { userId: ids.r2 } })).toMatchObject([{ PTS: 7 }]);
    w.server.now.advance(6 * 24 * HOUR);
    expect((await board('WEEK')).data).toEqual([]);
  });
});
