// The per-request cost of the nosql request path, in figures that survive a loaded machine: while autocannon
// sends Q1, Q2 or Q5 at a fixed concurrency, the CPU time per request of the server process (from /proc, its
// threads included) and, on PostgreSQL, of the database's backends serving it, and the statements each request
// runs (transactions committed, from pg_stat_database: every statement outside a transaction is one; its
// statistics lag, so the figure is approximate). Then each statement's database CPU on one connection, beside
// its typed-table baseline (nosql-statements.ts).
// `npm run bench nosql-overhead`; BENCH_NOSQL_DOCS (10,000 is enough here), BENCH_SECONDS,
// BENCH_OVERHEAD_CASES (q1,q2,q5), BENCH_CONNECTIONS (8). BENCH_CPU_PROF=<dir> writes V8 CPU profiles of the
// server there (node --cpu-prof). PostgreSQL only: the embedded store has no backends to read.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, spawnPlaybase, waitReady } from '../test/processes.js';
import { writeResults } from './lib.js';
import { ADMIN, QUERIES, seed } from './nosql-data.js';
import { statementCosts } from './nosql-statements.js';
import { onEachStore } from './stores.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const CASES = (process.env.BENCH_OVERHEAD_CASES ?? 'q1,q2,q5')
  .split(',')
  .map((name) => QUERIES[Number(name.slice(1)) - 1]!);

/** CPU seconds (user + system) of a process, 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

interface Row {
  name: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  serverCpuMicrosPerRequest: number;
  databaseCpuMicrosPerRequest: number;
  statementsPerRequest: number;
}

/** The database's side: its backends' CPU (the monitoring connection's own left out) and its commits. */
async function databaseProbe(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const own = (await client.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
  return {
    async read(): Promise<{ cpu: number; commits: number }> {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1',
        [own],
      );
      // Statistics reach pg_stat_database within a second of each commit.
      await new Promise((r) => setTimeout(r, 1200));
      const commits = await client.query<{ n: string }>(
        'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      return { cpu: rows.reduce((s, r) => s + cpuSeconds(r.pid), 0), commits: Number(commits.rows[0]!.n) };
    },
    close: () => client.end(),
  };
}

async function runStore(store: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const prof = process.env.BENCH_CPU_PROF;
  const playbase = spawnPlaybase(
    {
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
      PLAYBASE_DATABASE_POOL_SIZE: '8',
      ...env,
    },
    'src/main.ts',
    prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
  );
  const pid = playbase.child.pid!;
  try {
    await waitReady(playbase.url).catch((e) => {
      throw new Error(`${(e as Error).message}: ${playbase.output()}`);
    });
    const game = await seed(playbase.url);
    // What autovacuum does after a bulk load (as the nosql bench does): index-only counts need the visibility map.
    const vacuum = new pg.Client({ connectionString: env.DATABASE_URL! });
    await vacuum.connect();
    await vacuum.query('VACUUM nosql_documents, nosql_key_entries');
    await vacuum.end();
    const db = await databaseProbe(env.DATABASE_URL!);
    const rows: Row[] = [];
    for (const c of CASES) {
      const run = async (seconds: number) =>
        autocannon({
          url: `${game.mongo}/${c.op}`,
          method: 'POST',
          connections: CONNECTIONS,
          duration: seconds,
          headers: { 'content-type': 'application/json', 'x-svc-jwt': game.jwt },
          requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(c.body()) }) }],
        });
      await run(1);
      const before = { server: cpuSeconds(pid), db: await db.read() };
      const result = await run(SECONDS);
      const after = { server: cpuSeconds(pid), db: await db.read() };
      if (result.non2xx > 0) throw new Error(`${c.name}: ${result.non2xx} non-2xx answers`);
      const n = result.requests.total;
      const row: Row = {
        name: c.name,
        requests: n,
        requestsPerSecond: Math.round(result.requests.average),
        p50Ms: result.latency.p50,
        serverCpuMicrosPerRequest: Math.round(((after.server - before.server) * 1e6) / n),
        databaseCpuMicrosPerRequest: Math.round(((after.db.cpu - before.db.cpu) * 1e6) / n),
        statementsPerRequest: Number(((after.db.commits - before.db.commits) / n).toFixed(2)),
      };
      console.log(
        `${store} ${row.name}: ${row.requestsPerSecond} req/s, p50 ${row.p50Ms} ms, CPU per request: ` +
          `server ${row.serverCpuMicrosPerRequest} µs, database ${row.databaseCpuMicrosPerRequest} µs; ` +
          `${row.statementsPerRequest} statements`,
      );
      rows.push(row);
    }
    await db.close();
    const statements = await statementCosts(env.DATABASE_URL!, game.apiKey);
    return { store, rows, statementDatabaseCpuMicros: statements };
  } finally {
    playbase.child.kill('SIGTERM');
    await playbase.exited;
  }
}

export async function benchNosqlOverhead(): Promise<void> {
  const results = await onEachStore('postgres', runStore);
  writeResults('nosql-overhead', {
    connections: CONNECTIONS,
    secondsPerQuery: SECONDS,
    documents: Number(process.env.BENCH_NOSQL_DOCS ?? 100_000),
    results,
  });
}
