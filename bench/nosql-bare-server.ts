// The bare baselines of the nosql bench: node:http and the store's pg pool (PostgreSQL, or PGlite through the
// same worker pool Playbase uses), no Playbase layer. Each route takes the same JSON body as the Playbase
// route it is measured against and answers JSON like it:
//   POST /q1 /q2 /q3 /q4  hand-written SQL over a typed table (bench/nosql-bare-sql.ts), loaded at start
//   POST /agg             issue 16's $match + $group as a plain GROUP BY over the typed table
//   POST /large           SELECT doc::text of the large find's rows of Playbase's nosql_documents
//   POST /scan            the unindexed equality as doc->>'userName' = $1 over the same stored rows
//   POST /playbase-sql/q1 Q1's exact SQL as Playbase compiles it (its database-bound limit)
//   GET /ping             SELECT 1 through the pool (waits behind its queue, for draining)
// Env: PORT; DATABASE_URL (PostgreSQL) or PLAYBASE_DATA_DIR (PGlite); BENCH_GAME (the game's apiKey);
// BENCH_SEEDED (the players seeded before Q5); BENCH_SCAN_COLLECTION; PLAYBASE_DATABASE_POOL_SIZE.
import { createServer, type ServerResponse } from 'node:http';
import { parseFilter } from '../src/query/filter.js';
import { openStore } from '../src/store/db.js';
import { compileWhere, selectSql } from '../src/store/document-reads.js';
import {
  type BareScope,
  byDisplayName,
  countCountry,
  countryFromLevel,
  firstDocuments,
  groupByCountry,
  loadTypedPlayers,
  scanByUserName,
  topLevels,
} from './nosql-bare-sql.js';

const store = await openStore({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.PLAYBASE_DATA_DIR ?? '',
  statementTimeoutMs: 60_000,
  poolSize: Number(process.env.PLAYBASE_DATABASE_POOL_SIZE ?? 10),
});
const pool = store.pool;
const game = process.env.BENCH_GAME ?? '';
const scope: BareScope = {
  game,
  stage: 'preview',
  players: 'player',
  scan: process.env.BENCH_SCAN_COLLECTION ?? 'script.playerScan',
};

const started = Date.now();
const loaded = await loadTypedPlayers(
  pool,
  scope,
  Number(process.env.BENCH_SEEDED),
  store.kind === 'postgres',
);
process.stdout.write(`typed table: ${loaded} players loaded and indexed in ${Date.now() - started} ms\n`);

// The request bodies are Playbase's (bench/nosql-data.ts); a hand-written server reads the fields it expects.
// biome-ignore lint/suspicious/noExplicitAny: the bench's own bodies, read as a hand-written server would.
type Body = any;

/** Answers a text that already is JSON (documents as stored, joined into an array). */
const jsonArray = (texts: string[]) => `[${texts.join(',')}]`;

const routes: Record<string, (body: Body) => Promise<string>> = {
  '/q1': async (b) => JSON.stringify(await byDisplayName(pool, b.query.displayName)),
  '/q2': async (b) => JSON.stringify(await topLevels(pool, b.query.level.$gt, b.limit)),
  '/q3': async (b) => JSON.stringify({ count: await countCountry(pool, b.query.country) }),
  '/q4': async (b) =>
    JSON.stringify(await countryFromLevel(pool, b.query.country, b.query.level.$gte, b.limit)),
  '/agg': async (b) => JSON.stringify(await groupByCountry(pool, b[0].$match.level.$gte)),
  '/large': async (b) => jsonArray(await firstDocuments(pool, scope, b.limit)),
  '/scan': async (b) => jsonArray(await scanByUserName(pool, scope, b.query.userName)),
  '/playbase-sql/q1': playbaseQ1,
};

/** Q1 as Playbase runs it first for a find without sort or skip (document-reads.ts readInIdOrder). */
async function playbaseQ1(b: Body): Promise<string> {
  const where = compileWhere(
    { game, stage: 'preview', collection: 'player' },
    parseFilter({ displayName: b.query.displayName }),
  );
  const stmt = selectSql(where, '', { afterId: undefined, offset: 0, limit: 101, ordered: false });
  const { rows } = await pool.query<{ doc: string }>(stmt.text, stmt.values);
  // What a plain server does with jsonb: the driver's parse, then the answer's stringify.
  return JSON.stringify(rows.map((r) => JSON.parse(r.doc)));
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/plain' });
  res.end(text);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/ping') {
    pool.query('SELECT 1').then(
      () => send(res, 200, '{}'),
      (e) => send(res, 500, String(e)),
    );
    return;
  }
  const route = routes[req.url ?? ''];
  if (!route) return send(res, 404, 'no such route');
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    // A body that is not JSON rejects here too, and answers 500 rather than ending the process.
    Promise.resolve(body)
      .then((text) => route(JSON.parse(text)))
      .then(
        (text) => send(res, 200, text),
        (e) => send(res, 500, String(e)),
      );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  server.close();
  void store.close().then(() => process.exit(0));
});
