// Runtime data server figures on both stores: 100,000 player documents, indexes on displayName, level and
// country, 32 connections; Q1-Q5 through Playbase, then Q1's SQL through a bare node:http + pg server.
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, type Running, spawnPlaybase, waitReady } from '../test/processes.js';
import { type Figure, writeResults } from './lib.js';
import { onEachStore } from './stores.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const DOCS = Number(process.env.BENCH_NOSQL_DOCS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const COUNTRIES = [
  'US',
  'GB',
  'FR',
  'DE',
  'ES',
  'IT',
  'NL',
  'SE',
  'NO',
  'FI',
  'PL',
  'BR',
  'AR',
  'MX',
  'CA',
  'JP',
  'KR',
  'CN',
  'IN',
  'AU',
];
const TAGS = ['pvp', 'pve', 'guild', 'casual', 'pro', 'whale'];

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

function player(i: number): Record<string, unknown> {
  return {
    userName: `user${i}`,
    displayName: `Player ${i}`,
    currency1: int(0, 100_000),
    level: int(1, 100),
    country: pick(COUNTRIES),
    tags: TAGS.filter(() => Math.random() < 0.3),
    created: { $date: new Date(Date.UTC(2025, 0, 1) + int(0, 365 * 86_400) * 1000).toISOString() },
    scriptData: { xp: int(0, 1_000_000) },
  };
}

async function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Game {
  apiKey: string;
  jwt: string;
  mongo: string;
}

/** A game with 100,000 players (inserted through the API in arrays of 5,000) and its three indexes. */
async function seed(url: string): Promise<Game> {
  const basic = {
    authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
  };
  const { apiKey } = (await call(`${url}/restv2/games`, 'POST', basic, { name: 'nosql bench' })) as {
    apiKey: string;
  };
  const jwt = (
    (await call(`${url}/restv2/auth/game/${apiKey}/jwt?expireInSeconds=3600`, 'GET', basic)) as Record<
      string,
      string
    >
  )['X-SVC-JWT']!;
  const mongo = `${url}/preview/restv2/game/${apiKey}/mongo/collection/player`;
  const headers = { 'x-svc-jwt': jwt };
  const started = Date.now();
  for (let i = 0; i < DOCS; i += 5000) {
    const batch = Array.from({ length: Math.min(5000, DOCS - i) }, (_, k) => player(i + k));
    await call(`${mongo}/insert`, 'POST', headers, batch);
  }
  console.log(`seeded ${DOCS} players in ${Date.now() - started} ms`);
  const indexed = Date.now();
  for (const field of ['displayName', 'level', 'country']) {
    await call(`${mongo}/index/${field}_1`, 'POST', headers, { [field]: 1 });
  }
  console.log(`built 3 indexes in ${Date.now() - indexed} ms`);
  return { apiKey, jwt, mongo };
}

/** autocannon with a fresh body per request, so that each query asks for other values. */
async function measure(
  name: string,
  url: string,
  jwt: string,
  makeBody: () => unknown,
  seconds = SECONDS,
): Promise<Figure> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 32,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-svc-jwt': jwt },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(makeBody()) }) }],
  });
  const figure: Figure = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  console.log(
    `${name}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, non-2xx ${figure.non2xx}`,
  );
  return figure;
}

const QUERIES: Array<[string, string, () => unknown]> = [
  ['Q1 find by displayName', 'find', () => ({ query: { displayName: `Player ${int(0, DOCS - 1)}` } })],
  [
    'Q2 level > 90, sort level desc, limit 20',
    'find',
    () => ({ query: { level: { $gt: 90 } }, sort: { level: -1 }, limit: 20 }),
  ],
  ['Q3 count country', 'count', () => ({ query: { country: pick(COUNTRIES) } })],
  [
    'Q4 country and level >= 50, limit 20, projection',
    'find',
    () => ({
      query: { country: pick(COUNTRIES), level: { $gte: 50 } },
      limit: 20,
      fields: { displayName: 1, level: 1, country: 1 },
    }),
  ],
  ['Q5 insert one document', 'insert', () => player(DOCS + int(0, 1e9))],
];

/**
 * Waits until requests left over from the previous measure are done: the server goes on with queries whose
 * clients have gone, so a cheap count stays slow until the backlog is through (at most two minutes).
 */
async function drain(game: Game): Promise<void> {
  const started = Date.now();
  let quick = 0;
  while (quick < 2 && Date.now() - started < 120_000) {
    const t = Date.now();
    await call(`${game.mongo}/count`, 'POST', { 'x-svc-jwt': game.jwt }, { query: { _id: 'none' } });
    quick = Date.now() - t < 50 ? quick + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stop(p: Running): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

async function waitLine(p: Running, line: string): Promise<void> {
  const start = Date.now();
  while (!p.output().includes(line)) {
    if (Date.now() - start > 60_000) throw new Error(`no "${line}" from ${p.url}: ${p.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One store: Playbase with Q1-Q5, then the bare server with Q1 on the same data. */
async function runStore(
  store: 'pglite' | 'postgres',
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  console.log(`\n--- ${store} ---`);
  // Both servers get the same pool: 8 connections, about four per core of this 2-core machine's PostgreSQL
  // (with 20, the backends mostly take turns on the cores: Q1's p99 was 27-29 ms against 18-23 ms).
  env = { PLAYBASE_DATABASE_POOL_SIZE: process.env.BENCH_POOL_SIZE ?? '8', ...env };
  const playbase = spawnPlaybase({
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    ...env,
  });
  let game: Game | undefined;
  const figures: Figure[] = [];
  let plans: Record<string, unknown> = {};
  try {
    await waitReady(playbase.url);
    game = await seed(playbase.url);
    if (env.DATABASE_URL) await analyze(env.DATABASE_URL);
    plans = await explainAll(game);
    for (const [name, op, body] of QUERIES) {
      await measure(`warm-up ${name}`, `${game.mongo}/${op}`, game.jwt, body, 1);
      await drain(game);
      figures.push(await measure(name, `${game.mongo}/${op}`, game.jwt, body));
      await drain(game);
    }
  } finally {
    await stop(playbase);
  }
  if (!game) throw new Error('no game was seeded');
  const jwt = game.jwt;
  const port = String(await freePort());
  const bare = spawnPlaybase({ PORT: port, BENCH_GAME: game.apiKey, ...env }, 'bench/nosql-bare-server.ts');
  try {
    await waitLine(bare, 'ready');
    const url = `http://127.0.0.1:${port}/`;
    const q1 = QUERIES[0]![2];
    await measure('warm-up bare Q1', url, jwt, q1, 1);
    figures.push(await measure('bare node:http + pg, Q1 SQL', url, jwt, q1));
  } finally {
    await stop(bare);
  }
  const q1 = figures[0]!;
  const limit = figures[figures.length - 1]!;
  const ratio = Number((q1.requestsPerSecond / limit.requestsPerSecond).toFixed(3));
  console.log(`${store}: Q1 at ${ratio} of the bare limit, p99 ${q1.p99Ms} ms`);
  return { store, documents: DOCS, figures, q1ToBareRatio: ratio, plans };
}

/** What autovacuum does on its own after a bulk load, done now so that it does not run during the measures (index creation analyzes). */
async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = Date.now();
  await client.query('VACUUM nosql_documents');
  console.log(`VACUUM in ${Date.now() - started} ms`);
  await client.end();
}

async function explainAll(game: Game): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, op, body] of QUERIES) {
    if (op !== 'find') continue;
    const plan = (await call(`${game.mongo}/explain`, 'POST', { 'x-svc-jwt': game.jwt }, body())) as {
      indexesUsed: string[];
    };
    out[name] = plan.indexesUsed;
  }
  console.log('indexes used', out);
  return out;
}

export async function benchNosql(): Promise<void> {
  const results = await onEachStore(process.env.BENCH_NOSQL_STORES ?? 'pglite,postgres', runStore);
  writeResults('nosql', { connections: 32, secondsPerQuery: SECONDS, results });
}
