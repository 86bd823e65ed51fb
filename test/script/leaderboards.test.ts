// Spark.getLeaderboards() through the runtime requests API: a script reading the leaderboard the events posted to
// (pages of entries, entries from a player, the count, the rank a score would take) and deleting a cheater's
// entry, asserting the answer and the leaderboard as the runtime then reads it, on PGlite or PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG);
  // Posted one after the other: of the two 70s, p3 got there first and ranks higher.
  for (const [name, score] of [
    ['p1', 50],
    ['p2', 90],
    ['p3', 70],
    ['p4', 70],
  ] as const) {
    ids[name] = await w.player(name);
    await w.ask('LogEventRequest', { eventKey: 'score', playerId: ids[name], SCORE: score });
  }
}, 60_000);

afterAll(async () => {
  await w?.close();
});

/** Runs the source as the AccountDetailsRequest script of p2; its scriptData `out`. */
async function run(lines: string[]): Promise<Record<string, unknown>> {
  await setScripts(w, [script('request', 'AccountDetailsRequest', lines.join('\n'))]);
  const answer = await w.ask('AccountDetailsRequest', { playerId: ids.p2 });
  if (answer.error) throw new Error(JSON.stringify(answer));
  return answer.scriptData?.out;
}

const ranks = async () =>
  (
    (await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'HSLB', playerId: ids.p2 })).data as {
      userId: string;
      rank: number;
    }[]
  ).map((e) => [e.userId, e.rank]);

describe('Spark.getLeaderboards()', () => {
  it('describes a leaderboard and reads its entries, count and the rank of a score', async () => {
    const out = await run([
      'var lbs = Spark.getLeaderboards();',
      'var lb = lbs.getLeaderboard("HSLB");',
      'function rows(c) { var r = []; while (c.hasNext()) { var e = c.next(); r.push([e.getUserId(), e.getRank(), e.getAttribute("SCORE"), e.getUserName()]); } return r; }',
      'var list = lbs.listLeaderboards(), codes = [];',
      'for (var i = 0; i < list.length; i++) codes.push(list[i].getShortCode());',
      'var top = lb.getEntries(1).next();',
      'Spark.setScriptData("out", {',
      '  missing: lbs.getLeaderboard("NOPE"), name: lb.getName(), code: lb.getShortCode(), codes: codes,',
      '  partitioned: lb.isPartitioned(), fields: lb.getScoreFields(), count: lb.getEntryCount(),',
      '  page: rows(lb.getEntries(2, 1)), all: rows(lb.getEntries()).length,',
      `  fromP3: rows(lb.getEntriesFromPlayer("${ids.p3}", 2)), fromNobody: rows(lb.getEntriesFromPlayer("nobody", 2)),`,
      '  rank95: lb.getRankForScore(95), rank70: lb.getRankForScore(70), rank60: lb.getRankForScore(60),',
      '  rank10: lb.getRankForScore(10), pct: top.getRankPercentage(), when: typeof top.getWhen()',
      '});',
    ]);
    expect(out).toEqual({
      missing: null,
      name: 'High scores',
      code: 'HSLB',
      codes: ['HSLB'],
      partitioned: false,
      fields: ['SCORE'],
      count: 4,
      page: [
        [ids.p3, 2, 70, 'Dr p3'],
        [ids.p4, 3, 70, 'Dr p4'],
      ],
      all: 4,
      fromP3: [
        [ids.p3, 2, 70, 'Dr p3'],
        [ids.p4, 3, 70, 'Dr p4'],
      ],
      fromNobody: [],
      rank95: 1,
      rank70: 2,
      rank60: 4,
      rank10: 5,
      pct: 25,
      when: 'string',
    });
  });

  it('deleteEntry removes the entry in the execution: rolled back when the script fails, kept when it ends well', async () => {
    const deleting = (fail: boolean) => [
      'var lb = Spark.getLeaderboards().getLeaderboard("HSLB");',
      `var first = lb.deleteEntry("${ids.p1}", false), again = lb.deleteEntry("${ids.p1}", false);`,
      'Spark.setScriptData("out", { first: first, again: again, count: lb.getEntryCount() });',
      fail ? 'throw new Error("changed my mind");' : '',
    ];
    await setScripts(w, [script('request', 'AccountDetailsRequest', deleting(true).join('\n'))]);
    const failed = await w.ask('AccountDetailsRequest', { playerId: ids.p2 });
    expect(failed.error).toEqual({ SCRIPT: 'ERROR' });
    expect(await ranks()).toContainEqual([ids.p1, 4]);

    expect(await run(deleting(false))).toEqual({ first: true, again: false, count: 3 });
    expect(await ranks()).toEqual([
      [ids.p2, 1],
      [ids.p3, 2],
      [ids.p4, 3],
    ]);
  });
});
