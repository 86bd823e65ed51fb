// Many game servers posting at once: 20 clients × 25 LogEventRequests for shared players and one leaderboard,
// checked against a sequential replay of the same events (no lost update, no duplicate entry, exact ranks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Json, type RuntimeWorld, startRuntimeWorld } from './world.js';

const CONFIG = {
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: '',
      '~attributes': [
        { name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
        { name: 'N', shortCode: 'N', dataType: 'int', defaultAggregationType: 'COUNT', defaultValue: 1 },
      ],
    },
  ],
  '~runningTotals': [
    {
      shortCode: 'BEST',
      name: 'Best',
      event: { '@ref': '/~events/score' },
      collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
    },
    {
      shortCode: 'SUMS',
      name: 'Sums',
      event: { '@ref': '/~events/score' },
      collectors: [
        { attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'SUM' },
        { attribute: { '@ref': '/~events/score/~attributes/N' }, calculation: 'COUNT' },
      ],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'TOP',
      name: 'Top',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/BEST' }, collector: 'SCORE', sort: 'DESC' }],
    },
  ],
};

const CLIENTS = 20;
const PER_CLIENT = 25;
const PLAYERS = 30;

/** mulberry32: the same events on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe(`concurrent LogEventRequests (${storeKind})`, () => {
  let w: RuntimeWorld;
  let players: string[];
  beforeAll(async () => {
    w = await startRuntimeWorld(CONFIG);
    players = await Promise.all(
      Array.from({ length: PLAYERS }, async (_, i) => {
        const answer = await w.ask('DeviceAuthenticationRequest', {
          deviceId: `device-${i}`,
          deviceOS: 'IOS',
        });
        return answer.userId as string;
      }),
    );
  });
  afterAll(async () => w.close());

  it(`${CLIENTS} clients × ${PER_CLIENT} events at once → running totals and ranked entries equal a sequential replay`, async () => {
    const next = random(2026);
    const plans = Array.from({ length: CLIENTS }, () =>
      Array.from({ length: PER_CLIENT }, () => ({
        playerId: players[Math.floor(next() * PLAYERS)] as string,
        // A small range: many ties, broken (all posted at one clock time) by player id.
        SCORE: Math.floor(next() * 50) - 10,
      })),
    );
    const answers = await Promise.all(
      plans.map(async (events) => {
        const out: Json[] = [];
        for (const e of events) out.push(await w.ask('LogEventRequest', { eventKey: 'score', ...e }));
        return out;
      }),
    );
    expect(answers.flat().filter((a) => a.error)).toEqual([]);

    const replay = new Map<string, { max: number; sum: number; count: number }>();
    for (const e of plans.flat()) {
      const r = replay.get(e.playerId);
      replay.set(e.playerId, {
        max: Math.max(r?.max ?? -Infinity, e.SCORE),
        sum: (r?.sum ?? 0) + e.SCORE,
        count: (r?.count ?? 0) + 1,
      });
    }
    const sums = await w.find('SUMS-runningTotal');
    expect(new Map(sums.map((d: Json) => [d.userId, { sum: d.SCORE, count: d.N }]))).toEqual(
      new Map([...replay].map(([id, r]) => [id, { sum: r.sum, count: r.count }])),
    );
    const best = await w.find('BEST-runningTotal');
    expect(new Map(best.map((d: Json) => [d.userId, d.SCORE]))).toEqual(
      new Map([...replay].map(([id, r]) => [id, r.max])),
    );

    const expected = [...replay]
      .sort(([a, ra], [b, rb]) => rb.max - ra.max || (a < b ? -1 : 1))
      .map(([id, r], i) => [id, r.max, i + 1]);
    const { data } = await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'TOP', entryCount: 100 });
    expect(data.map((e: Json) => [e.userId, e.SCORE, e.rank])).toEqual(expected);
    for (const [id, , rank] of expected) {
      const around = await w.ask('AroundMeLeaderboardRequest', {
        leaderboardShortCode: 'TOP',
        playerId: id,
        entryCount: 0,
      });
      expect(around.data.map((e: Json) => [e.userId, e.rank])).toEqual([[id, rank]]);
    }
    expect(await w.find('TOP-leaderboard')).toHaveLength(replay.size);
  });
});
