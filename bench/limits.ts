// Cost of the rate limiters: one authenticated GET with limits off, on in memory, and on in Redis, in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  type Running,
  sharedPostgres,
  spawnPlaybase,
  stopAll,
  waitReady,
} from '../test/processes.js';
import { type Figure, load, writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const basicHeader = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
// Counted on every request but never reached during the run.
const HIGH = '10000000';

/** On PostgreSQL (BENCH_DATABASE_URL, a fresh schema each) so the store is not the bottleneck; else embedded. */
async function start(
  label: string,
  env: Record<string, string>,
  cleanups: (() => Promise<void>)[],
): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), `playbase-bench-${label}-`));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = databaseUrl === 'none' ? undefined : await sharedPostgres(databaseUrl);
  if (db) cleanups.push(db.drop);
  const p = spawnPlaybase({
    ...(db ? { DATABASE_URL: db.url } : {}),
    PORT: String(await freePort()),
    PLAYBASE_DATA_DIR: dataDir,
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    ...env,
  });
  await waitReady(p.url);
  return p;
}

/** A game and a JWT for it on that server. */
async function jwtOn(url: string): Promise<{ apiKey: string; jwt: string }> {
  const token = (
    (await (
      await fetch(`${url}/restv2/auth/user`, { headers: { authorization: basicHeader } })
    ).json()) as Record<string, string>
  )['X-SVCAccessToken'] as string;
  const game = (await (
    await fetch(`${url}/restv2/games`, {
      method: 'POST',
      headers: { 'x-svcaccesstoken': token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    })
  ).json()) as { apiKey: string };
  const jwt = (
    (await (
      await fetch(`${url}/restv2/auth/game/${game.apiKey}/jwt`, { headers: { 'x-svcaccesstoken': token } })
    ).json()) as Record<string, string>
  )['X-SVC-JWT'] as string;
  return { apiKey: game.apiKey, jwt };
}

export async function benchLimits(): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const cleanups: (() => Promise<void>)[] = [];
  const off = { PLAYBASE_LIMIT_USER_PER_MINUTE: '0', PLAYBASE_LIMIT_GAME_PER_MINUTE: '0' };
  const on = { PLAYBASE_LIMIT_USER_PER_MINUTE: HIGH, PLAYBASE_LIMIT_GAME_PER_MINUTE: HIGH };
  const servers = {
    off: await start('off', off, cleanups),
    memory: await start('memory', on, cleanups),
    redis: await start(
      'redis',
      { ...on, REDIS_URL: redisUrl, PLAYBASE_REDIS_KEY_PREFIX: `bench-${Date.now()}` },
      cleanups,
    ),
  };
  try {
    const targets = await Promise.all(
      Object.entries(servers).map(async ([name, server]) => {
        const { apiKey, jwt } = await jwtOn(server.url);
        const target = {
          url: `${server.url}/restv2/game/${apiKey}/endpoints`,
          headers: { 'x-svc-jwt': jwt },
          ...(server.child.pid === undefined ? {} : { serverPid: server.child.pid }),
        };
        return [name, target] as const;
      }),
    );
    console.log(`store: ${process.env.BENCH_DATABASE_URL === 'none' ? 'embedded' : 'PostgreSQL'}`);
    for (const [name, target] of targets) await load(`warm-up ${name}`, { ...target, durationS: 2 });
    // Short rounds, each measuring the three side by side; the median cost shrugs off a noisy neighbour
    // (the load generator, the servers, PostgreSQL and Redis share the machine's cores).
    const rounds: Record<string, Figure>[] = [];
    for (let i = 1; i <= Number(process.env.BENCH_ROUNDS ?? 9); i++) {
      const round: Record<string, Figure> = {};
      // The order rotates from round to round, so that no configuration always runs first or last.
      const order = [...targets.slice(i % targets.length), ...targets.slice(0, i % targets.length)];
      for (const [name, target] of order) {
        round[name] = await load(`round ${i}: limits ${name}: GET endpoints with a JWT`, target);
      }
      rounds.push(round);
    }
    const costs = (name: string) =>
      rounds.map((r) =>
        Number((1 - (r[name]?.requestsPerSecond ?? 0) / (r.off?.requestsPerSecond ?? 1)).toFixed(3)),
      );
    // The server's CPU time per request: steadier than throughput on a shared machine, and what the limiters add
    // to a CPU-bound server (Redis's own CPU is not in it: in production Redis runs elsewhere).
    const cpuCosts = (name: string) =>
      rounds.map((r) =>
        Number(
          (
            (r[name]?.serverCpuMicrosPerRequest ?? 0) / (r.off?.serverCpuMicrosPerRequest ?? Number.NaN) -
            1
          ).toFixed(3),
        ),
      );
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const result = {
      costsMemory: costs('memory'),
      costsRedis: costs('redis'),
      throughputCostMemory: median(costs('memory')),
      throughputCostRedis: median(costs('redis')),
      cpuCostsMemory: cpuCosts('memory'),
      cpuCostsRedis: cpuCosts('redis'),
      cpuPerRequestCostMemory: median(cpuCosts('memory')),
      cpuPerRequestCostRedis: median(cpuCosts('redis')),
      goal: 'throughput cost of the limiters under 10% with Redis',
    };
    console.log(
      `median throughput cost of the limiters: memory ${result.throughputCostMemory}, redis ${result.throughputCostRedis}; ` +
        `server CPU per request: memory +${result.cpuPerRequestCostMemory}, redis +${result.cpuPerRequestCostRedis}`,
    );
    writeResults('limits', { figures: rounds.flatMap((r) => Object.values(r)), ...result });
  } finally {
    await stopAll(Object.values(servers));
    for (const cleanup of cleanups) await cleanup();
  }
}
