// Runtime figures on PostgreSQL: LogEventRequest throughput (one running total, one leaderboard) and
// AroundMeLeaderboardRequest latency on a leaderboard of 1,000,000 entries (seeded with SQL).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { entryOrder, valuesKey } from '../src/runtime/ordering.js';
import type { LeaderboardField } from '../src/runtime/runtime-config.js';
import { entriesAround } from '../src/store/leaderboard-reads.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, waitReady } from '../test/processes.js';
import { writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const ENTRIES = Number(process.env.BENCH_LEADERBOARD_ENTRIES ?? 1_000_000);
const PLAYERS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

const CONFIG = {
  '~events': [
    {
      name: 'Score',
      shortCode: 'score',
      description: 'bench',
      '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' }],
    },
  ],
  '~runningTotals': [
    {
      shortCode: 'BEST',
      name: 'Best',
      event: { '@ref': '/~events/score' },
      collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'LB',
      name: 'Best scores',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/BEST' }, collector: 'SCORE', sort: 'DESC' }],
    },
  ],
  '~credentials': [{ name: 'bench' }],
};
const FIELDS: LeaderboardField[] = [
  { attribute: 'SCORE', calculation: 'MAX', runningTotal: 'BEST', event: 'score', sort: 'DESC', ranks: true },
];

async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** A game configured with the bench event; the runtime base URL (credential and secret included). */
async function setUp(url: string): Promise<string> {
  const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
  const token = (await call(`${url}/restv2/auth/user`, { headers: { authorization: basic } }))[
    'X-SVCAccessToken'
  ];
  const owner = { 'x-svcaccesstoken': String(token) };
  const game = await call(`${url}/restv2/games`, { method: 'POST', headers: owner, body: { name: 'bench' } });
  const config = `${url}/restv2/game/${game.apiKey}/config`;
  await call(config, { method: 'PUT', headers: owner, body: CONFIG });
  const { secret } = await call(`${config}/~credentials/bench/resetSecret`, {
    method: 'POST',
    headers: owner,
  });
  return `${url}/preview/rs/bench/${encodeURIComponent(String(secret))}`;
}

async function devicePlayers(rs: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < PLAYERS; i += 50) {
    const batch = Array.from({ length: 50 }, (_, j) =>
      call(`${rs}/DeviceAuthenticationRequest`, {
        method: 'POST',
        body: { deviceId: `bench-${i + j}`, deviceOS: 'IOS' },
      }),
    );
    for (const answer of await Promise.all(batch)) ids.push(String(answer.userId));
  }
  return ids;
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;

async function measure(name: string, rs: string, request: string, body: () => unknown, connections: number) {
  const result = await autocannon({
    url: `${rs}/${request}`,
    connections,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(body()) }),
      },
    ],
  });
  const figure = {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  console.log(
    `${name} (${connections} conn): ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, non-2xx ${figure.non2xx}`,
  );
  return figure;
}

/** Fills the leaderboard's board to ENTRIES entries with synthetic players, then rebuilds its rank buckets. */
async function seed(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ board_id: string }>(
    `SELECT board_id FROM runtime_boards WHERE leaderboard = 'LB' AND partition = ''`,
  );
  const boardId = rows[0]?.board_id;
  if (!boardId) throw new Error('no board: post an event first');
  const { rows: have } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM runtime_entries WHERE board_id = $1',
    [boardId],
  );
  const start = Date.now();
  for (let done = Number(have[0]?.n ?? 0); done < ENTRIES; ) {
    const size = Math.min(20_000, ENTRIES - done);
    const players: string[] = [];
    const ords: Buffer[] = [];
    const vals: string[] = [];
    for (let i = 0; i < size; i++) {
      const player = `seed${String(done + i).padStart(8, '0')}`;
      const score = Math.floor(Math.random() * 1_000_000);
      players.push(player);
      ords.push(entryOrder(valuesKey(FIELDS, [score]), 1_700_000_000_000, player));
      vals.push(JSON.stringify([score]));
    }
    await db.query(
      `INSERT INTO runtime_entries (board_id, player_id, ord, vals, when_ms, user_name, doc_id)
       SELECT $1, p, o, v::jsonb, 1700000000000, p, lpad(to_hex(n), 24, '0')
       FROM unnest($2::text[], $3::bytea[], $4::text[]) WITH ORDINALITY AS u(p, o, v, n)`,
      [boardId, players, ords, vals],
    );
    done += size;
  }
  // Buckets as organic splits leave them (half full: the most buckets a rank sums).
  await db.query('DELETE FROM runtime_rank_buckets WHERE board_id = $1', [boardId]);
  await db.query(
    `INSERT INTO runtime_rank_buckets (board_id, lower, n)
     SELECT $1, CASE WHEN rn = 0 THEN '\\x'::bytea ELSE ord END, least(512, total - rn)
     FROM (SELECT ord, row_number() OVER (ORDER BY ord) - 1 AS rn, count(*) OVER () AS total
           FROM runtime_entries WHERE board_id = $1) o
     WHERE rn % 512 = 0`,
    [boardId],
  );
  await db.query('VACUUM ANALYZE runtime_entries');
  await db.query('VACUUM ANALYZE runtime_rank_buckets');
  // The seed's WAL is written out now, not by a checkpoint in the middle of the measurement.
  await db.query('CHECKPOINT');
  console.log(`seeded ${ENTRIES} entries in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return boardId;
}

/** The rank query alone, in process: p50 and p99 of entriesAround (the player, 5 ahead and 5 behind). */
async function coreAroundMe(db: pg.Pool, boardId: string, players: string[]) {
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await entriesAround(db, boardId, pick(players), 5);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number((times[Math.floor(q * (times.length - 1))] ?? 0).toFixed(2));
  const figure = { name: 'AroundMe core (SQL, in process)', p50Ms: at(0.5), p99Ms: at(0.99) };
  console.log(`${figure.name}: p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms`);
  return figure;
}

async function run(p: Running, db: pg.Pool) {
  const rs = await setUp(p.url);
  const players = await devicePlayers(rs);
  const logEvent = () => ({
    eventKey: 'score',
    playerId: pick(players),
    SCORE: Math.floor(Math.random() * 1_000_000),
  });
  await measure('warm-up', rs, 'LogEventRequest', logEvent, 16);
  const figures = [await measure('LogEventRequest, new leaderboard', rs, 'LogEventRequest', logEvent, 32)];
  const boardId = await seed(db);
  const around = () => ({ leaderboardShortCode: 'LB', playerId: pick(players), entryCount: 5 });
  await measure('warm-up', rs, 'AroundMeLeaderboardRequest', around, 4);
  figures.push(
    await measure(
      `AroundMeLeaderboardRequest, ${ENTRIES} entries`,
      rs,
      'AroundMeLeaderboardRequest',
      around,
      1,
    ),
  );
  figures.push(
    await measure(
      `AroundMeLeaderboardRequest, ${ENTRIES} entries`,
      rs,
      'AroundMeLeaderboardRequest',
      around,
      16,
    ),
  );
  const core = await coreAroundMe(db, boardId, players);
  // The same writes once the board is large: its keys spread over ~2000 buckets instead of one.
  figures.push(await measure(`LogEventRequest, ${ENTRIES} entries`, rs, 'LogEventRequest', logEvent, 32));
  return { figures, core };
}

export async function benchRuntime(): Promise<void> {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const shared = await sharedPostgres(base);
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-runtime-'));
  const p = spawnPlaybase({
    DATABASE_URL: shared.url,
    PORT: String(await freePort()),
    PLAYBASE_DATA_DIR: dataDir,
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_LIMIT_RUNTIME_PER_SECOND: '0',
    LOG_LEVEL: 'warn',
  });
  const db = new pg.Pool({ connectionString: shared.url, max: 4 });
  try {
    await waitReady(p.url);
    // The machine's load around the run: latency figures mean little on a machine busy with other work.
    const loadBefore = loadavg()[0] ?? 0;
    const { figures, core } = await run(p, db);
    const load = { before: loadBefore, after: loadavg()[0] ?? 0, cpus: availableParallelism() };
    console.log(`load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)} on ${load.cpus} CPUs`);
    writeResults('runtime', {
      store: 'PostgreSQL',
      leaderboardEntries: ENTRIES,
      load,
      figures,
      aroundMeCore: core,
    });
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
    await db.end();
    await shared.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
