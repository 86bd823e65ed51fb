// `npm run bench hostile`: the worst legal inputs of each kind (test/hostile/cases.ts) sent to a real server
// process on each store while a probe on its own thread calls /healthz every 50 ms; the longest /healthz wait
// per case and overall goes to bench/results/hostile.json. The issue's target: under 100 ms on both stores.
import { hostileCases } from '../test/hostile/cases.js';
import { type CaseResult, hostileGame, runHostile } from '../test/hostile/run.js';
import { freePort, spawnPlaybase, waitReady } from '../test/processes.js';
import { pinApart, writeResults } from './lib.js';
import { onEachStore } from './stores.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const SCALE = Number(process.env.BENCH_HOSTILE_SCALE ?? 1);
const DOCUMENTS = Number(process.env.BENCH_HOSTILE_DOCS ?? 50_000);

async function runStore(store: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  console.log(`\n--- ${store} ---`);
  const server = spawnPlaybase({
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    ...env,
  });
  let results: CaseResult[] = [];
  let pinned = '';
  try {
    await waitReady(server.url);
    pinned = pinApart(server.child.pid ?? 0);
    const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const call = await hostileGame(server.url, basic);
    results = await runHostile(server.url, call, hostileCases(SCALE, DOCUMENTS), console.log);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const healthzMaxMs = Math.max(...results.map((r) => r.healthzMaxMs));
  const unexpected = results.filter((r) => !r.accepted).map((r) => `${r.name}: ${r.status}`);
  console.log(`${store}: longest /healthz wait ${healthzMaxMs} ms; unexpected answers: ${unexpected.length}`);
  return { store, pinned, healthzMaxMs, unexpected, cases: results };
}

export async function benchHostile(): Promise<void> {
  const results = await onEachStore(process.env.BENCH_HOSTILE_STORES ?? 'pglite,postgres', runStore);
  writeResults('hostile', { scale: SCALE, documents: DOCUMENTS, probeIntervalMs: 50, results });
}
