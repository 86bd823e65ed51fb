// The leaderboard core on a real store: concurrent events with tiny rank buckets against a sequential replay.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvent, buildLeaderboard, buildRunningTotal } from '../../src/config/config-build.js';
import type { FullConfig } from '../../src/config/config-types.js';
import { findBoard } from '../../src/runtime/boards.js';
import type { GameStage } from '../../src/runtime/doc-store.js';
import {
  countEntries,
  entriesAround,
  entriesFrom,
  withSnapshot,
} from '../../src/runtime/leaderboard-read.js';
import { applyEvent } from '../../src/runtime/log-event.js';
import { compileRuntimeConfig, type RuntimeConfig } from '../../src/runtime/runtime-config.js';
import type { Store } from '../../src/store/db.js';
import { freshStore, storeKind } from '../harness.js';

const config = {
  apiKey: 'rankgame',
  '~events': [
    buildEvent({
      name: 'Score',
      shortCode: 'score',
      description: '',
      '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' }],
    }),
  ],
  '~runningTotals': [
    buildRunningTotal({
      shortCode: 'BEST',
      name: 'Best',
      event: { '@ref': '/~events/score' },
      collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
    }),
  ],
  '~leaderboards': [
    buildLeaderboard({
      shortCode: 'LB',
      name: 'Best scores',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/BEST' }, collector: 'SCORE', sort: 'DESC' }],
    }),
  ],
  '~indexedTypes': [],
  '~credentials': [],
} satisfies FullConfig;

interface Posted {
  player: string;
  score: number;
  at: number;
}

/** Every player posts distinct scores, so the event that sets a player's best (and its time) is one event. */
function makeEvents(players: number, perPlayer: number, seed: number): Posted[] {
  const rows = fc.sample(
    fc.array(
      fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: perPlayer, maxLength: perPlayer }),
      {
        minLength: players,
        maxLength: players,
      },
    ),
    { seed, numRuns: 1 },
  )[0] as number[][];
  const events: Posted[] = [];
  rows.forEach((scores, p) => {
    for (const score of scores) events.push({ player: `p${String(p).padStart(3, '0')}`, score, at: 0 });
  });
  // Shuffle deterministically, then give each event its own time.
  const order = fc.sample(fc.shuffledSubarray(events, { minLength: events.length }), {
    seed,
    numRuns: 1,
  })[0] as Posted[];
  return order.map((e, i) => ({ ...e, at: 1_000_000 + i }));
}

function replay(events: Posted[]): { player: string; score: number; at: number }[] {
  const best = new Map<string, Posted>();
  for (const e of events) {
    const b = best.get(e.player);
    if (!b || e.score > b.score) best.set(e.player, e);
  }
  return [...best.values()].sort(
    (a, b) => b.score - a.score || a.at - b.at || (a.player < b.player ? -1 : 1),
  );
}

/** Each bucket of the board against the entries between its lower bound and the next bucket's. */
async function bucketCounts(store: Store, boardId: string): Promise<{ n: number; actual: number }[]> {
  const { rows } = await store.pool.query<{ n: string; actual: string }>(
    `SELECT b.n, (SELECT count(*) FROM runtime_entries e WHERE e.board_id = b.board_id AND e.ord >= b.lower
        AND (nb.lower IS NULL OR e.ord < nb.lower)) AS actual
     FROM runtime_rank_buckets b
     LEFT JOIN LATERAL (SELECT lower FROM runtime_rank_buckets x WHERE x.board_id = b.board_id AND x.lower > b.lower
                        ORDER BY x.lower LIMIT 1) nb ON true
     WHERE b.board_id = $1 ORDER BY b.lower`,
    [boardId],
  );
  return rows.map((r) => ({ n: Number(r.n), actual: Number(r.actual) }));
}

describe(`leaderboard core (${storeKind})`, () => {
  let store: Store;
  let drop: () => Promise<void>;
  let runtime: RuntimeConfig;
  const gs: GameStage = { game: 'rankgame', stage: 'preview' };

  beforeAll(async () => {
    const fresh = await freshStore();
    store = fresh.store;
    drop = async () => {
      await store.close();
      await fresh.drop();
    };
    runtime = compileRuntimeConfig('test', config);
  });
  afterAll(async () => drop());

  it('a better score of a player in a full bucket: the split it causes counts the move once', async () => {
    const plan = runtime.events.get('score');
    const lb = runtime.leaderboards.get('LB');
    if (!plan || !lb) throw new Error('no plan');
    const post = (player: string, score: number, at: number) =>
      applyEvent(
        store.pool,
        { game: 'rankgame', stage: 'live' },
        { plan, values: new Map([['SCORE', score]]), playerId: player, userName: player, nowMs: at },
        4,
      );
    await post('a', 10, 2_000_000);
    await post('b', 20, 2_000_001);
    await post('c', 30, 2_000_002);
    // a's entry moves up within the one bucket: its new key (+1) sorts before its old one (-1), and the +1
    // fills the bucket to its split size.
    await post('a', 40, 2_000_003);
    const board = await findBoard(store.pool, { game: 'rankgame', stage: 'live' }, lb, '', 0);
    if (!board) throw new Error('no board');
    const counts = await bucketCounts(store, board.boardId);
    expect(counts.map((c) => c.n)).toEqual(counts.map((c) => c.actual));
    expect(counts.reduce((sum, c) => sum + c.n, 0)).toBe(3);

    // Migration 0018 repairs boards whose buckets drifted so before the fix.
    await store.pool.query('UPDATE runtime_rank_buckets SET n = n - 1 WHERE board_id = $1 AND n > 0', [
      board.boardId,
    ]);
    expect((await bucketCounts(store, board.boardId)).some((c) => c.n !== c.actual)).toBe(true);
    await store.pool.query(readFileSync('src/store/migrations/0018_rank_bucket_recount.sql', 'utf8'));
    const repaired = await bucketCounts(store, board.boardId);
    expect(repaired.map((c) => c.n)).toEqual(repaired.map((c) => c.actual));
  });

  it('concurrent events, buckets of 4 splitting under load → every bucket counts its range; ranks equal a sequential replay', async () => {
    const events = makeEvents(60, 5, 7);
    const plan = runtime.events.get('score');
    if (!plan) throw new Error('no plan');
    const queue = [...events];
    const worker = async () => {
      for (let e = queue.shift(); e; e = queue.shift()) {
        await applyEvent(
          store.pool,
          gs,
          {
            plan,
            values: new Map([['SCORE', e.score]]),
            playerId: e.player,
            userName: e.player,
            nowMs: e.at,
          },
          4,
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));

    const expected = replay(events);
    const lb = runtime.leaderboards.get('LB');
    if (!lb) throw new Error('no leaderboard');
    const board = await findBoard(store.pool, gs, lb, '', 0);
    if (!board) throw new Error('no board');
    // The invariant: each bucket counts exactly the entries between its lower bound and the next one's.
    const { rows: buckets } = await store.pool.query<{ n: string; actual: string }>(
      `SELECT b.n, (SELECT count(*) FROM runtime_entries e WHERE e.board_id = b.board_id AND e.ord >= b.lower
          AND (nb.lower IS NULL OR e.ord < nb.lower)) AS actual
       FROM runtime_rank_buckets b
       LEFT JOIN LATERAL (SELECT lower FROM runtime_rank_buckets x WHERE x.board_id = b.board_id AND x.lower > b.lower
                          ORDER BY x.lower LIMIT 1) nb ON true
       WHERE b.board_id = $1`,
      [board.boardId],
    );
    expect(buckets.length).toBeGreaterThan(10);
    expect(buckets.map((b) => Number(b.n))).toEqual(buckets.map((b) => Number(b.actual)));

    const all = await entriesFrom(store.pool, board.boardId, 0, 1000);
    expect(all.map((e) => [e.playerId, e.values[0], e.whenMs, e.rank])).toEqual(
      expected.map((e, i) => [e.player, e.score, e.at, i + 1]),
    );
    expect(await countEntries(store.pool, board.boardId)).toBe(expected.length);
    for (const offset of [1, 7, 23, 58, 59, 60]) {
      const page = await entriesFrom(store.pool, board.boardId, offset, 3);
      expect(page.map((e) => [e.playerId, e.rank])).toEqual(
        expected.slice(offset, offset + 3).map((e, i) => [e.player, offset + i + 1]),
      );
    }
    for (const [i, e] of expected.entries()) {
      const around = await withSnapshot(store.pool, (c) => entriesAround(c, board.boardId, e.player, 1));
      const mine = around.find((a) => a.playerId === e.player);
      expect(mine?.rank).toBe(i + 1);
      expect(around.map((a) => a.playerId)).toEqual(
        expected.slice(Math.max(0, i - 1), i + 2).map((x) => x.player),
      );
    }
  });
});
