// Propagation delay to a runtime cluster (docs/topology.md): a control process (auth + config) and a cluster's
// nosql process (PLAYBASE_CLUSTER) on two stores of their own; 100 configuration writes, each timed from the
// write's answer (committed) to the first answer of the cluster that shows it (its Preview collections list the
// new running total), polled every 2 ms. BENCH_CLUSTERS_STORES: pglite, postgres or both (default both).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Running, sharedPostgres, spawnPlaybase, waitReady } from '../test/processes.js';
import { writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const CHANGES = 100;
const basicHeader = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

async function json<T>(res: Promise<Response>): Promise<T> {
  const answer = await res;
  if (!answer.ok) throw new Error(`${answer.url}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const round1 = (x: number) => Number(x.toFixed(1));

/** A running total named `code` over one event: the configuration write each round makes. */
function configWith(code: string) {
  return {
    '~events': [
      {
        name: 'Score',
        shortCode: 'score',
        description: 'A score',
        '~attributes': [
          { name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
        ],
      },
    ],
    '~runningTotals': [
      {
        shortCode: code,
        name: code,
        event: { '@ref': '/~events/score' },
        collectors: [{ attribute: { '@ref': '/~events/score/~attributes/SCORE' }, calculation: 'MAX' }],
      },
    ],
  };
}

async function measure(
  store: 'pglite' | 'postgres',
  processes: Running[],
  cleanups: (() => Promise<void>)[],
) {
  const own = async (): Promise<Record<string, string>> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-clusters-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    if (store === 'pglite') return { PLAYBASE_DATA_DIR: dataDir };
    const db = await sharedPostgres(
      process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    );
    cleanups.push(db.drop);
    return { PLAYBASE_DATA_DIR: dataDir, DATABASE_URL: db.url };
  };
  const common = {
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_CLUSTERS: JSON.stringify({
      a: { liveNosql: 'http://a/live', previewNosql: 'http://a/preview' },
    }),
    PLAYBASE_CLUSTER_SECRET: randomBytes(24).toString('hex'),
    PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  };
  const control = spawnPlaybase({
    ...common,
    ...(await own()),
    PORT: String(await freePort()),
    PLAYBASE_ROLES: 'auth,config',
  });
  processes.push(control);
  await waitReady(control.url);
  const cluster = spawnPlaybase({
    ...common,
    ...(await own()),
    PORT: String(await freePort()),
    PLAYBASE_ROLES: 'nosql',
    PLAYBASE_CLUSTER: 'a',
    PLAYBASE_AUTH_URL: control.url,
  });
  processes.push(cluster);
  await waitReady(cluster.url);

  const login = await json<Record<string, string>>(
    fetch(`${control.url}/restv2/auth/user`, { headers: { authorization: basicHeader } }),
  );
  const owner = {
    'x-svcaccesstoken': login['X-SVCAccessToken'] as string,
    'content-type': 'application/json',
  };
  const { apiKey } = await json<{ apiKey: string }>(
    fetch(`${control.url}/restv2/games`, {
      method: 'POST',
      headers: owner,
      body: JSON.stringify({ name: 'bench', cluster: 'a' }),
    }),
  );
  const jwt = (
    await json<Record<string, string>>(
      fetch(`${control.url}/restv2/auth/game/${apiKey}/jwt`, { headers: owner }),
    )
  )['X-SVC-JWT'] as string;
  const shows = async (code: string) => {
    const res = await fetch(`${cluster.url}/preview/restv2/game/${apiKey}/mongo/collections`, {
      headers: { 'x-svc-jwt': jwt },
    });
    if (!res.ok) return false;
    return ((await res.json()) as { name: string }[]).some((c) => c.name === `${code}-runningTotal`);
  };

  const delays: number[] = [];
  for (let i = 0; i < CHANGES + 1; i++) {
    const code = `T${i}`;
    await json(
      fetch(`${control.url}/restv2/game/${apiKey}/config`, {
        method: 'PUT',
        headers: owner,
        body: JSON.stringify(configWith(code)),
      }),
    );
    const committed = performance.now();
    while (!(await shows(code))) {
      if (performance.now() - committed > 10_000) throw new Error(`change ${i} not seen within 10 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    // The first round also waits for the signing key and the game to arrive: left out.
    if (i > 0) delays.push(performance.now() - committed);
  }
  const sorted = delays.sort((a, b) => a - b);
  const figure = {
    store,
    changes: CHANGES,
    p50Ms: round1(percentile(sorted, 0.5)),
    p99Ms: round1(percentile(sorted, 0.99)),
    maxMs: round1(sorted.at(-1) ?? 0),
  };
  console.log(
    `${store}: configuration write → served on the cluster: p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, max ${figure.maxMs} ms`,
  );
  return figure;
}

export async function benchClusters(): Promise<void> {
  const wanted = (process.env.BENCH_CLUSTERS_STORES ?? 'pglite,postgres').split(',');
  const figures = [];
  for (const store of ['pglite', 'postgres'] as const) {
    if (!wanted.includes(store)) continue;
    const processes: Running[] = [];
    const cleanups: (() => Promise<void>)[] = [];
    try {
      figures.push(await measure(store, processes, cleanups));
    } finally {
      for (const p of processes) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
      for (const cleanup of cleanups) await cleanup();
    }
  }
  writeResults('clusters', {
    what: 'delay from a configuration write answered by the control process to the cluster process serving it (change feed, long poll)',
    figures,
  });
}
