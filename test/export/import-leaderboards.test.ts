// Leaderboard documents on import: each mirror of a configured leaderboard becomes a ranked entry again (ranks,
// pages, buckets, later events), a leaderboard the stage does not configure keeps its documents only, and a bad or
// doubled entry names its line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Headers, type ImportWorld, type Json, startImportWorld } from './import-world.js';

const ENTRIES = 1200;
const hex = (i: number) => `65${String(i).padStart(22, '0')}`;
const oid = (i: number) => ({ $oid: hex(i) });
const date = (ms: number) => ({ $date: { $numberLong: String(ms) } });

describe(`leaderboard documents on import (${storeKind})`, () => {
  let w: ImportWorld;
  let game: { apiKey: string; secret: string; jwt: Headers };
  let base: number;

  const rs = async (name: string, body: Record<string, unknown>) => {
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/preview/rs/server/${encodeURIComponent(game.secret)}/${name}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ '@class': `.${name}`, ...body }),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const importLines = (lines: unknown[], apiKey = game.apiKey, jwt = game.jwt) =>
    w.server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${apiKey}/mongo/import`,
      headers: { ...jwt, 'content-type': 'application/x-ndjson' },
      payload: lines.map((l) => JSON.stringify(l)).join('\n'),
    });
  const mirror = (i: number, extra: Record<string, unknown> = {}) => ({
    collection: 'RACE-leaderboard',
    document: {
      _id: oid(100_000 + i),
      leaderboardShortCode: 'RACE',
      userId: hex(i),
      userName: `Dr ${i}`,
      TIME: { $numberInt: String(i % 300) },
      CAR: `car ${i}`,
      when: date(base + (i % 7)),
      ...extra,
    },
  });
  // The players in rank order: time, then when, then player id.
  const ranked = Array.from({ length: ENTRIES }, (_, i) => i).sort(
    (a, b) => (a % 300) - (b % 300) || (a % 7) - (b % 7) || hex(a).localeCompare(hex(b)),
  );
  const count = async (sql: string, params: unknown[]) =>
    Number((await w.server.store.pool.query<{ n: string }>(sql, params)).rows[0]?.n);

  beforeAll(async () => {
    w = await startImportWorld();
    base = w.server.now.value - 60_000;
    const made = await w.newGame('ranked');
    game = { ...made, jwt: await w.jwt(made.apiKey) };
    const players = Array.from({ length: ENTRIES }, (_, i) => ({
      collection: 'player',
      document: { _id: oid(i), userName: `u${i}`, displayName: `Dr ${i}` },
    }));
    const mirrors = Array.from({ length: ENTRIES }, (_, i) => mirror(i));
    const res = await importLines([...players, ...mirrors]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().collections).toEqual({ player: ENTRIES, 'RACE-leaderboard': ENTRIES });
  }, 120_000);
  afterAll(async () => w?.close());

  it(`${ENTRIES} imported entries → ranks 1..${ENTRIES} by time, then when, then player id, over several pages`, async () => {
    const expected = ranked.map((i, rank) => [hex(i), rank + 1]);
    const page = async (offset: number) =>
      (await rs('LeaderboardDataRequest', { leaderboardShortCode: 'RACE', offset, entryCount: 1000 })).data;
    const all = [...(await page(0)), ...(await page(1000))];
    expect(all.map((e: Json) => [e.userId, e.rank])).toEqual(expected);
    expect(all[0]).toEqual({
      userId: hex(0),
      userName: 'Dr 0',
      TIME: 0,
      CAR: 'car 0',
      when: new Date(base).toISOString(),
      rank: 1,
    });
    const [middleId, middleRank] = expected[700] as [string, number];
    const around = await rs('AroundMeLeaderboardRequest', {
      leaderboardShortCode: 'RACE',
      playerId: middleId,
      entryCount: 2,
    });
    expect(around.data.map((e: Json) => [e.userId, e.rank])).toEqual(expected.slice(698, 703));
    expect(middleRank).toBe(701);
  });

  it('the rank buckets count exactly the entries of their ranges, each range following the last', async () => {
    const { rows } = await w.server.store.pool.query<{
      lower: Buffer;
      upper: Buffer | null;
      n: string;
      actual: string;
    }>(
      `SELECT k.lower, k.upper, k.n,
         (SELECT count(*) FROM runtime_entries e WHERE e.board_id = k.board_id AND e.ord >= k.lower
            AND (k.upper IS NULL OR e.ord < k.upper)) AS actual
       FROM runtime_rank_buckets k JOIN runtime_boards b ON b.board_id = k.board_id
       WHERE b.game_id = $1 AND b.leaderboard = 'RACE' ORDER BY k.lower`,
      [game.apiKey],
    );
    expect(rows.length).toBe(Math.ceil(ENTRIES / 512));
    expect(rows.map((r) => Number(r.n))).toEqual(rows.map((r) => Number(r.actual)));
    expect(rows.reduce((sum, r) => sum + Number(r.n), 0)).toBe(ENTRIES);
    expect(rows[0]?.lower.length).toBe(0);
    rows.forEach((r, i) => {
      const next = rows[i + 1];
      expect(next ? r.upper?.equals(next.lower) : r.upper === null).toBe(true);
    });
  });

  it('an imported player posts again → the entry moves to its new rank and everyone behind moves down one', async () => {
    const last = ENTRIES - 1;
    await rs('LogEventRequest', { eventKey: 'race', playerId: hex(last), TIME: -1, CAR: 'rocket' });
    const top = (await rs('LeaderboardDataRequest', { leaderboardShortCode: 'RACE', entryCount: 3 })).data;
    expect(top.map((e: Json) => [e.userId, e.rank])).toEqual([
      [hex(last), 1],
      [hex(ranked[0] as number), 2],
      [hex(ranked[1] as number), 3],
    ]);
    const mirrors = await count(
      `SELECT count(*) AS n FROM nosql_documents WHERE game_id = $1 AND collection = 'RACE-leaderboard'`,
      [game.apiKey],
    );
    // The runtime rewrote the imported mirror (same _id), it did not add a second one.
    expect(mirrors).toBe(ENTRIES);
  });

  it('documents of a leaderboard the stage does not configure are kept as documents, with no board', async () => {
    const other = await w.newGame('other');
    const jwt = await w.jwt(other.apiKey);
    const orphan = { ...mirror(1), collection: 'OLD-leaderboard' };
    const res = await importLines([orphan], other.apiKey, jwt);
    expect(res.statusCode, res.body).toBe(200);
    const boards = await count('SELECT count(*) AS n FROM runtime_boards WHERE game_id = $1', [other.apiKey]);
    const docs = await count('SELECT count(*) AS n FROM nosql_documents WHERE game_id = $1', [other.apiKey]);
    expect([boards, docs]).toEqual([0, 1]);
  });

  it('a mirror that is no entry of its leaderboard → 400 naming the line; a player twice on a board → 409; nothing written', async () => {
    const fresh = await w.newGame('fresh');
    const jwt = await w.jwt(fresh.apiKey);
    const before = await count('SELECT count(*) AS n FROM nosql_documents WHERE game_id = $1', [
      fresh.apiKey,
    ]);
    const cases: [unknown[], number, string, RegExp][] = [
      [[mirror(1), mirror(2, { userId: 7 })], 400, 'IMPORT_BAD_RECORD', /^Line 2: .*userId/],
      [
        [mirror(1, { leaderboardShortCode: 'RACE.X.Y' })],
        400,
        'IMPORT_BAD_RECORD',
        /^Line 1: .*leaderboardShortCode/,
      ],
      [[mirror(1, { when: 'yesterday' })], 400, 'IMPORT_BAD_RECORD', /^Line 1: .*when/],
      [
        [mirror(1), mirror(2), { ...mirror(1), document: { ...mirror(1).document, _id: oid(9) } }],
        409,
        'IMPORT_CONFLICT',
        /^Line 3: player 6500+1 already has an entry on leaderboard RACE/,
      ],
    ];
    for (const [lines, status, code, message] of cases) {
      const res = await importLines(lines, fresh.apiKey, jwt);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().code).toBe(code);
      expect(res.json().message).toMatch(message);
    }
    const after = await count('SELECT count(*) AS n FROM nosql_documents WHERE game_id = $1', [fresh.apiKey]);
    const entries = await count(
      'SELECT count(*) AS n FROM runtime_entries e JOIN runtime_boards b USING (board_id) WHERE b.game_id = $1',
      [fresh.apiKey],
    );
    expect([before, after, entries]).toEqual([0, 0, 0]);
  });
});
