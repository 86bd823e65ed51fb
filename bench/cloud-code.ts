// Cloud Code figures on PostgreSQL (issue 17): LogEventRequest without a script, with an event script that only
// sets scriptData, and with one doing a findOne, an upserting update and setScriptData (8 connections); the cost
// of starting an execution (in process, the sandbox alone); the server's memory with 32 executions in flight;
// /healthz latency while hostile scripts run. Ratios within one run mean more than absolute figures on a
// shared 2-core machine.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { readStoredConfig, writeGameConfig } from '../src/store/game-configs.js';
import { bumpConfigVersion } from '../src/store/games.js';
import type { CloudScript, ConfigDoc } from '../src/types/config.js';
import { freePort, sharedPostgres, spawnPlaybase, waitReady } from '../test/processes.js';
import { sandboxParts, startCost } from './cloud-code-sandbox.js';
import { cpuPerRequest, cpuSnapshot, writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PLAYERS = 200;

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
  '~credentials': [{ name: 'bench' }],
};

const SET_SCRIPT_DATA = 'Spark.setScriptData("score", Spark.getData().SCORE);';
const FIND_AND_UPSERT = [
  'var pid = Spark.getData().playerId;',
  'var c = Spark.runtimeCollection("state");',
  'var s = c.findOne({ _id: pid });',
  'c.update({ _id: pid }, { $inc: { plays: 1 }, $set: { last: Spark.getData().SCORE } }, true, false);',
  'Spark.setScriptData("plays", s === null ? 1 : s.plays + 1);',
].join('\n');

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

async function setUp(url: string): Promise<{ rs: string; apiKey: string }> {
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
  return { rs: `${url}/preview/rs/bench/${encodeURIComponent(String(secret))}`, apiKey: String(game.apiKey) };
}

/** Puts the scripts into the working configuration (the store's document), and waits for the runtime to see it. */
async function setScripts(db: pg.Pool, apiKey: string, scripts: CloudScript[]): Promise<void> {
  const doc = (await readStoredConfig(db, apiKey)) ?? {};
  await writeGameConfig(db, apiKey, { ...doc, '~scripts': scripts } as ConfigDoc);
  await bumpConfigVersion(db, apiKey);
  await new Promise((r) => setTimeout(r, 1500));
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;

async function measure(
  name: string,
  rs: string,
  body: () => unknown,
  connections: number,
  serverPid: number,
  /** Requests per second across the connections (open loop); unset, each connection sends as soon as answered. */
  overallRate?: number,
) {
  const before = cpuSnapshot(serverPid);
  const result = await autocannon({
    url: `${rs}/LogEventRequest`,
    connections,
    duration: SECONDS,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(body()) }),
      },
    ],
  });
  const cpuMicrosPerRequest = cpuPerRequest(before, cpuSnapshot(serverPid), result.requests.total);
  const figure = {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMicrosPerRequest,
  };
  console.log(
    `${name} (${connections} conn): ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms; ` +
      `CPU µs/request: ${JSON.stringify(cpuMicrosPerRequest)}`,
  );
  return figure;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Server RSS before, and at its highest while 32 requests each run a script of ~300 ms. */
async function inFlight(pid: number, rs: string, players: string[]) {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const requests = Array.from({ length: 32 }, () =>
    call(`${rs}/LogEventRequest`, {
      method: 'POST',
      body: { eventKey: 'score', playerId: pick(players), SCORE: 1 },
    }),
  );
  await Promise.all(requests);
  clearInterval(sampler);
  const figure = { name: 'server RSS with 32 executions in flight (MB)', beforeMb: before, peakMb: peak };
  console.log(`${figure.name}: before ${before}, peak ${peak}`);
  return figure;
}

/** The longest /healthz answer while 8 infinite loops run (each to the 2 s budget). */
async function healthDuringLoops(url: string, rs: string, players: string[]) {
  let done = false;
  const loops = Promise.all(
    Array.from({ length: 8 }, () =>
      call(`${rs}/LogEventRequest`, {
        method: 'POST',
        body: { eventKey: 'score', playerId: pick(players), SCORE: 1 },
      }),
    ),
  ).finally(() => {
    done = true;
  });
  let longest = 0;
  let n = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    longest = Math.max(longest, performance.now() - t);
    n++;
    await new Promise((r) => setTimeout(r, 20));
  }
  const answers = await loops;
  const figure = {
    name: '/healthz while 8 infinite loops run',
    longestMs: Number(longest.toFixed(1)),
    probes: n,
    timeouts: answers.filter((a) => (a.error as { SCRIPT?: string } | undefined)?.SCRIPT === 'TIMEOUT')
      .length,
  };
  console.log(
    `${figure.name}: longest ${figure.longestMs} ms over ${n} probes; ${figure.timeouts}/8 TIMEOUT`,
  );
  return figure;
}

export async function benchCloudCode(): Promise<void> {
  // BENCH_CC_SANDBOX_ONLY=1: the sandbox figures alone (no server, no database), in a few seconds.
  if (process.env.BENCH_CC_SANDBOX_ONLY === '1') {
    const load = loadavg()[0] ?? 0;
    const figures = [await sandboxParts(), await startCost()];
    console.log(
      `load average ${load.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} CPUs`,
    );
    return void figures;
  }
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const shared = await sharedPostgres(base);
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-cc-'));
  // BENCH_CPU_PROF=<dir>: V8 CPU profiles of the server's threads (node --cpu-prof), written when it stops.
  const prof = process.env.BENCH_CPU_PROF;
  const p = spawnPlaybase(
    {
      DATABASE_URL: shared.url,
      PORT: String(await freePort()),
      PLAYBASE_DATA_DIR: dataDir,
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_LIMIT_RUNTIME_PER_SECOND: '0',
      LOG_LEVEL: 'warn',
    },
    'src/main.ts',
    prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
  );
  const db = new pg.Pool({ connectionString: shared.url, max: 2 });
  try {
    await waitReady(p.url);
    const pid = p.child.pid as number;
    const loadBefore = loadavg()[0] ?? 0;
    const { rs, apiKey } = await setUp(p.url);
    const players: string[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const a = await call(`${rs}/DeviceAuthenticationRequest`, {
        method: 'POST',
        body: { deviceId: `bench-${i}`, deviceOS: 'IOS' },
      });
      players.push(String(a.userId));
    }
    const event = () => ({
      eventKey: 'score',
      playerId: pick(players),
      SCORE: Math.floor(Math.random() * 1e6),
    });
    await measure('warm-up', rs, event, 8, pid);
    const none = await measure('LogEventRequest, no script', rs, event, 8, pid);
    await setScripts(db, apiKey, [{ folder: 'event', shortCode: 'score', script: SET_SCRIPT_DATA }]);
    await measure('warm-up', rs, event, 8, pid);
    const setOnly = await measure('LogEventRequest, event script: setScriptData', rs, event, 8, pid);
    await setScripts(db, apiKey, [{ folder: 'event', shortCode: 'score', script: FIND_AND_UPSERT }]);
    await measure('warm-up', rs, event, 8, pid);
    const upsert = await measure(
      'LogEventRequest, event script: findOne + upsert + setScriptData',
      rs,
      event,
      8,
      pid,
    );
    // The same request's latency when the server is not saturated: 8 connections sending a third of what it
    // answered above (a closed loop's p50 is only 8 / its throughput).
    const paced = await measure(
      'LogEventRequest, event script: findOne + upsert + setScriptData, paced at a third of that',
      rs,
      event,
      8,
      pid,
      Math.max(10, Math.round(upsert.requestsPerSecond / 3)),
    );
    await setScripts(db, apiKey, [
      { folder: 'event', shortCode: 'score', script: 'var t = Date.now(); while (Date.now() - t < 300) {}' },
    ]);
    const memory = await inFlight(p.child.pid as number, rs, players);
    await setScripts(db, apiKey, [{ folder: 'event', shortCode: 'score', script: 'for (;;) {}' }]);
    const health = await healthDuringLoops(p.url, rs, players);
    const parts = await sandboxParts();
    const start = await startCost();
    const ratios = {
      setScriptDataVsNone: Number((setOnly.requestsPerSecond / none.requestsPerSecond).toFixed(2)),
      findOneUpsertVsNone: Number((upsert.requestsPerSecond / none.requestsPerSecond).toFixed(2)),
    };
    console.log(`ratios: ${JSON.stringify(ratios)}`);
    const load = { before: loadBefore, after: loadavg()[0] ?? 0, cpus: availableParallelism() };
    console.log(`load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)} on ${load.cpus} CPUs`);
    writeResults('cloud-code', {
      store: 'PostgreSQL',
      load,
      figures: [none, setOnly, upsert, paced],
      ratios,
      startCost: start,
      sandboxParts: parts,
      memory,
      health,
    });
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
    await db.end();
    await shared.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
