// Runtime data server figures on both stores: DOCS player documents (100,000 by default) with indexes on
// displayName, level and country, and SCAN_DOCS more in a collection with no index. Through Playbase: Q1-Q5,
// a find returning 10,000 documents and an equality find on an unindexed path. Then, on the same data, bare
// baselines (bench/nosql-bare-server.ts): Q1-Q4 in hand-written SQL over a typed table, the large find as
// SELECT doc::text, the unindexed find as doc->>'userName' = $1, and Q1's own SQL. Each pair's Playbase / bare
// ratio goes to bench/results/nosql.json and a table printed at the end.
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, type Running, spawnPlaybase, waitReady } from '../test/processes.js';
import { type Figure, writeResults } from './lib.js';
import {
  ADMIN,
  AGGREGATE,
  type Case,
  call,
  DOCS,
  type Game,
  LARGE_FIND,
  QUERIES,
  SCAN_COLLECTION,
  SCAN_DOCS,
  SCAN_FIND,
  seed,
} from './nosql-data.js';
import { compare, printRatios, type Ratio, type StoreResult } from './nosql-report.js';
import { onEachStore } from './stores.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
/** The large find moves about 2.5 MB a request: fewer connections, the same for Playbase and its baseline. */
const LARGE_CONNECTIONS = Number(process.env.BENCH_LARGE_CONNECTIONS ?? 4);
// Both servers get the same pool: 8 connections, about four per core of this 2-core machine's PostgreSQL
// (with 20, the backends mostly take turns on the cores: Q1's p99 was 27-29 ms against 18-23 ms).
const POOL_SIZE = process.env.BENCH_POOL_SIZE ?? '8';

/** autocannon with a fresh body per request, so that each query asks for other values. */
async function measure(
  name: string,
  url: string,
  jwt: string,
  makeBody: () => unknown,
  options: { seconds?: number; connections?: number } = {},
): Promise<Figure> {
  const connections = options.connections ?? CONNECTIONS;
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: options.seconds ?? SECONDS,
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
    ...(connections === CONNECTIONS ? {} : { connections }),
  };
  console.log(
    `${name}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, non-2xx ${figure.non2xx}`,
  );
  return figure;
}

/**
 * Waits until requests left over from the previous measure are done: a server goes on with queries whose
 * clients have gone, so a cheap request stays slow until the backlog is through (at most two minutes).
 */
async function drain(ping: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  let quick = 0;
  while (quick < 2 && Date.now() - started < 120_000) {
    const t = Date.now();
    await ping();
    quick = Date.now() - t < 50 ? quick + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Warm-up for a second, then the measure, each followed by a drain. */
async function warmAndMeasure(
  name: string,
  url: string,
  jwt: string,
  body: () => unknown,
  ping: () => Promise<unknown>,
  connections = CONNECTIONS,
): Promise<Figure> {
  await measure(`warm-up ${name}`, url, jwt, body, { seconds: 1, connections });
  await drain(ping);
  const figure = await measure(name, url, jwt, body, { connections });
  await drain(ping);
  return figure;
}

async function stop(p: Running): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

async function waitLine(p: Running, line: string, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!p.output().includes(line)) {
    if (Date.now() - start > timeoutMs || p.child.exitCode !== null)
      throw new Error(`no "${line}" from ${p.url}: ${p.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The cases with a bare baseline: Playbase's case, its collection, the bare route and name, connections. */
const PAIRS: Array<{
  case: Case;
  collection: 'mongo' | 'scan';
  route: string;
  bare: string;
  connections: number;
}> = [
  ...QUERIES.slice(0, 4).map((c, i) => ({
    case: c,
    collection: 'mongo' as const,
    route: `/q${i + 1}`,
    bare: `bare typed table SQL: ${c.name}`,
    connections: CONNECTIONS,
  })),
  {
    case: AGGREGATE,
    collection: 'mongo',
    route: '/agg',
    bare: `bare GROUP BY: ${AGGREGATE.name}`,
    connections: CONNECTIONS,
  },
  {
    case: LARGE_FIND,
    collection: 'mongo',
    route: '/large',
    bare: `bare SELECT doc::text: ${LARGE_FIND.name}`,
    connections: LARGE_CONNECTIONS,
  },
  {
    case: SCAN_FIND,
    collection: 'scan',
    route: '/scan',
    bare: `bare doc->>'userName' = $1: ${SCAN_FIND.name}`,
    connections: CONNECTIONS,
  },
];

/** Playbase on one store: seeds the game, then measures Q1-Q5, the large find and the unindexed find. */
async function runPlaybase(
  env: Record<string, string>,
): Promise<{ game: Game; figures: Figure[]; plans: Record<string, unknown> }> {
  const playbase = spawnPlaybase({
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    ...env,
  });
  try {
    await waitReady(playbase.url);
    const game = await seed(playbase.url);
    if (env.DATABASE_URL) await analyze(env.DATABASE_URL);
    const plans = await explainAll(game);
    const ping = () =>
      call(`${game.mongo}/count`, 'POST', { 'x-svc-jwt': game.jwt }, { query: { _id: 'none' } });
    const figures: Figure[] = [];
    for (const c of QUERIES) {
      figures.push(await warmAndMeasure(c.name, `${game.mongo}/${c.op}`, game.jwt, c.body, ping));
    }
    for (const pair of PAIRS.slice(4)) {
      const url = `${game[pair.collection]}/${pair.case.op}`;
      figures.push(
        await warmAndMeasure(pair.case.name, url, game.jwt, pair.case.body, ping, pair.connections),
      );
    }
    return { game, figures, plans };
  } finally {
    await stop(playbase);
  }
}

/** The bare server on the same store and data (Playbase stopped: PGlite has one owner): every baseline. */
async function runBare(env: Record<string, string>, game: Game): Promise<Figure[]> {
  const port = String(await freePort());
  const bare = spawnPlaybase(
    {
      PORT: port,
      BENCH_GAME: game.apiKey,
      BENCH_SEEDED: String(DOCS),
      BENCH_SCAN_COLLECTION: SCAN_COLLECTION,
      ...env,
    },
    'bench/nosql-bare-server.ts',
  );
  try {
    await waitLine(bare, 'ready', 600_000);
    console.log(bare.output().trim());
    const url = `http://127.0.0.1:${port}`;
    const ping = () => fetch(`${url}/ping`).then((r) => r.text());
    const figures: Figure[] = [];
    for (const pair of PAIRS) {
      figures.push(
        await warmAndMeasure(
          pair.bare,
          `${url}${pair.route}`,
          game.jwt,
          pair.case.body,
          ping,
          pair.connections,
        ),
      );
    }
    // Kept from earlier runs: Q1's exact SQL over the stored documents, Playbase's database-bound limit.
    figures.push(
      await warmAndMeasure(
        'bare node:http + pg, Q1 SQL',
        `${url}/playbase-sql/q1`,
        game.jwt,
        QUERIES[0]!.body,
        ping,
      ),
    );
    return figures;
  } finally {
    await stop(bare);
  }
}

/** One store: Playbase's figures, then the baselines', and each pair's ratio. */
async function runStore(
  store: 'pglite' | 'postgres',
  env: Record<string, string>,
): Promise<StoreResult & Record<string, unknown>> {
  console.log(`\n--- ${store} ---`);
  env = { PLAYBASE_DATABASE_POOL_SIZE: POOL_SIZE, ...env };
  const { game, figures, plans } = await runPlaybase(env);
  const bare = await runBare(env, game);
  const named = (name: string) => [...figures, ...bare].find((f) => f.name === name)!;
  const ratios: Ratio[] = PAIRS.map((p) =>
    compare(p.case.name, named(p.case.name), named(p.bare), p.connections),
  );
  const q1 = figures[0]!;
  const limit = bare[bare.length - 1]!;
  const q1ToBareRatio = Number((q1.requestsPerSecond / limit.requestsPerSecond).toFixed(3));
  console.log(`${store}: Q1 at ${q1ToBareRatio} of the bare limit of its own SQL, p99 ${q1.p99Ms} ms`);
  return {
    store,
    documents: DOCS,
    scanDocuments: SCAN_DOCS,
    figures: [...figures, ...bare],
    ratios,
    q1ToBareRatio,
    plans,
  };
}

/** What autovacuum does on its own after a bulk load, done now so that it does not run during the measures (index creation analyzes). */
async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = Date.now();
  await client.query('VACUUM nosql_documents');
  // The count entries (migration 0020) carry autovacuum settings of their own: after a bulk load they would be
  // vacuumed within a minute; done now for the same reason.
  await client.query('VACUUM nosql_key_entries');
  console.log(`VACUUM in ${Date.now() - started} ms`);
  await client.end();
}

async function explainAll(game: Game): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of QUERIES) {
    if (c.op !== 'find') continue;
    const plan = (await call(`${game.mongo}/explain`, 'POST', { 'x-svc-jwt': game.jwt }, c.body())) as {
      indexesUsed: string[];
    };
    out[c.name] = plan.indexesUsed;
  }
  console.log('indexes used', out);
  return out;
}

export async function benchNosql(): Promise<void> {
  const results = await onEachStore(process.env.BENCH_NOSQL_STORES ?? 'pglite,postgres', runStore);
  printRatios(results);
  writeResults('nosql', {
    connections: CONNECTIONS,
    largeFindConnections: LARGE_CONNECTIONS,
    poolSize: Number(POOL_SIZE),
    secondsPerQuery: SECONDS,
    baselines:
      'same run, same request bodies, same pool size: Q1-Q4 as hand-written SQL over a typed table bench_players ' +
      '(one column per field, btree indexes on display_name, level, country) loaded with the same seeded players; ' +
      'the large find as SELECT doc::text of the same nosql_documents rows; the unindexed find as ' +
      "doc->>'userName' = $1 over the same stored rows. ratios are Playbase / bare.",
    results,
  });
}
