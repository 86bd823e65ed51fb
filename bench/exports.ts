// Export of 1,000,000 small documents by a Playbase server process: seconds, MB/s of input, file size, peak RSS;
// then the import of that file into another game of the same server: seconds and peak RSS (bounded memory).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import {
  freePort,
  type Running,
  sharedPostgres,
  spawnPlaybase,
  stopAll,
  waitReady,
} from '../test/processes.js';
import { writeResults } from './lib.js';

const DOCUMENTS = Number(process.env.BENCH_EXPORT_DOCUMENTS ?? 1_000_000);
const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

// The stored form of {_id: "d<g>", n: <g>, name: "player <g>", score: <g % 1000>}: `$o` keeps the field order.
const SEED = `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
  SELECT $1, 'live', 'script.bench', '"d' || g || '"',
         jsonb_build_object('_id', 'd' || g, 'n', g, 'name', 'player ' || g, 'score', g % 1000,
                            '$o', jsonb_build_array('_id', 'n', 'name', 'score'))
  FROM generate_series($2::int, $3::int) g`;

async function seed(db: pg.Pool | pg.Client, apiKey: string): Promise<number> {
  for (let from = 1; from <= DOCUMENTS; from += 100_000) {
    await db.query(SEED, [apiKey, from, Math.min(from + 99_999, DOCUMENTS)]);
  }
  const { rows } = await db.query<{ bytes: string }>(
    'SELECT sum(octet_length(doc::text)) AS bytes FROM nosql_documents WHERE game_id = $1',
    [apiKey],
  );
  return Number(rows[0]?.bytes ?? 0);
}

function memoryOf(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) };
}

/**
 * Resets the process's peak RSS (VmHWM) to its current RSS (Linux: `5` into /proc/<pid>/clear_refs), so that
 * the next peak read is the peak of what follows; false where that is not allowed.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function start(env: Record<string, string>): Promise<Running> {
  const p = spawnPlaybase({
    PORT: String(await freePort()),
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    ...env,
  });
  await waitReady(p.url);
  return p;
}

async function json(
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

const jwtOf = async (url: string, apiKey: string) => ({
  'x-svc-jwt': (await json(`${url}/restv2/auth/game/${apiKey}/jwt`, { authorization: basic }))[
    'X-SVC-JWT'
  ] as string,
});

/** Times GET /live/.../mongo/export on a running server whose game already holds the documents. */
async function measure(store: string, p: Running, apiKey: string, inputBytes: number) {
  const headers = await jwtOf(p.url, apiKey);
  const pid = p.child.pid as number;
  const before = memoryOf(pid);
  const started = performance.now();
  const answer = await json(`${p.url}/live/restv2/game/${apiKey}/mongo/export`, headers);
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  const download = await fetch(answer.url as string);
  const file = Buffer.from(await download.arrayBuffer());
  const fileBytes = file.byteLength;
  const progressLines = p
    .output()
    .split('\n')
    .filter((l) => /exported \d+ documents/.test(l)).length;
  const figure = {
    store,
    documents: answer.count,
    seconds: Number(seconds.toFixed(2)),
    inputMB: Number((inputBytes / 1e6).toFixed(1)),
    inputMBPerSecond: Number((inputBytes / 1e6 / seconds).toFixed(1)),
    documentsPerSecond: Math.round(Number(answer.count) / seconds),
    fileMB: Number((fileBytes / 1e6).toFixed(1)),
    rssBeforeMB: before.rssMB,
    peakRssBeforeMB: before.peakMB,
    peakRssMB: after.peakMB,
    progressLogLines: progressLines,
  };
  console.log(
    `${store}: ${figure.documents} documents in ${figure.seconds} s, ${figure.inputMBPerSecond} MB/s of input ` +
      `(${figure.inputMB} MB), file ${figure.fileMB} MB, peak RSS ${figure.peakRssMB} MB (before: RSS ` +
      `${figure.rssBeforeMB} MB, peak ${figure.peakRssBeforeMB} MB), ${progressLines} progress lines`,
  );
  return { ...figure, import: await measureImport(store, p, file) };
}

/** Times POST /live/.../mongo/import of the export file into a new game of the same server. */
async function measureImport(store: string, p: Running, file: Buffer) {
  const apiKey = await newGame(p.url);
  const headers = await jwtOf(p.url, apiKey);
  const pid = p.child.pid as number;
  const peakReset = resetPeak(pid);
  const before = memoryOf(pid);
  const started = performance.now();
  const res = await fetch(`${p.url}/live/restv2/game/${apiKey}/mongo/import`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/gzip' },
    body: file,
  });
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
  const answer = (await res.json()) as { imported: number };
  const figure = {
    documents: answer.imported,
    seconds: Number(seconds.toFixed(2)),
    documentsPerSecond: Math.round(answer.imported / seconds),
    fileMB: Number((file.byteLength / 1e6).toFixed(1)),
    rssBeforeMB: before.rssMB,
    peakRssMB: after.peakMB,
    /** Whether the peak was reset before the import: then peakRssMB is the import's own peak. */
    peakResetBeforeImport: peakReset,
  };
  console.log(
    `${store} import: ${figure.documents} documents in ${figure.seconds} s (${figure.documentsPerSecond}/s), ` +
      `peak RSS ${figure.peakRssMB} MB (RSS before: ${figure.rssBeforeMB} MB${peakReset ? ', peak reset' : ''})`,
  );
  return figure;
}

async function newGame(url: string): Promise<string> {
  return (await json(`${url}/restv2/games`, { authorization: basic }, { name: 'export bench' }))
    .apiKey as string;
}

/** Embedded store: the documents are written into the data folder while no server holds it. */
async function benchEmbedded() {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-exports-'));
  try {
    let p = await start({ PLAYBASE_DATA_DIR: dataDir });
    const apiKey = await newGame(p.url);
    await stopAll([p]);
    const store = await openStore({ dataDir, statementTimeoutMs: 600_000 });
    await migrate(store.pool);
    const inputBytes = await seed(store.pool, apiKey);
    await store.close();
    p = await start({ PLAYBASE_DATA_DIR: dataDir });
    try {
      return await measure('embedded (PGlite)', p, apiKey, inputBytes);
    } finally {
      await stopAll([p]);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchPostgres(baseUrl: string) {
  const db = await sharedPostgres(baseUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-exports-pg-'));
  const p = await start({ DATABASE_URL: db.url, PLAYBASE_DATA_DIR: dataDir });
  const client = new pg.Client({ connectionString: db.url });
  try {
    const apiKey = await newGame(p.url);
    await client.connect();
    const inputBytes = await seed(client, apiKey);
    return await measure('PostgreSQL', p, apiKey, inputBytes);
  } finally {
    await client.end().catch(() => {});
    await stopAll([p]);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export async function benchExports(): Promise<void> {
  const figures = [await benchEmbedded()];
  const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  if (pgUrl !== 'none' && (await reachable(pgUrl))) figures.push(await benchPostgres(pgUrl));
  else console.log('PostgreSQL not reachable: only the embedded store was measured');
  writeResults('exports', { documents: DOCUMENTS, figures });
}
