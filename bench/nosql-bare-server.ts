// The database-bound limit of Q1: node:http and a pg pool running Q1's exact SQL, with no Playbase layer.
// Env: PORT; DATABASE_URL (PostgreSQL) or PLAYBASE_DATA_DIR (PGlite); BENCH_GAME (the game's apiKey).
import { createServer } from 'node:http';
import { parseFilter } from '../src/query/filter.js';
import { openStore } from '../src/store/db.js';
import { compileWhere, selectSql } from '../src/store/document-reads.js';

const store = await openStore({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.PLAYBASE_DATA_DIR ?? '',
  statementTimeoutMs: 10_000,
  poolSize: Number(process.env.PLAYBASE_DATABASE_POOL_SIZE ?? 10),
});
const scope = { game: process.env.BENCH_GAME ?? '', stage: 'preview' as const, collection: 'player' };

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', async () => {
    try {
      const { query } = JSON.parse(body) as { query: { displayName: string } };
      const plan = {
        filter: parseFilter({ displayName: query.displayName }),
        sort: [],
        skip: 0,
        limit: 10_000,
      };
      // The statement Playbase runs first for a find without sort or skip (read.ts readInIdOrder).
      const where = compileWhere(scope, plan.filter);
      const stmt = selectSql(where, '', { afterId: undefined, offset: 0, limit: 101, ordered: false });
      const { rows } = await store.pool.query<{ doc: string }>(stmt.text, stmt.values);
      res.writeHead(200, { 'content-type': 'application/json' });
      // What a plain server does with jsonb: the driver's parse, then the answer's stringify.
      res.end(JSON.stringify(rows.map((r) => JSON.parse(r.doc))));
    } catch (e) {
      res.writeHead(500);
      res.end(String(e));
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  server.close();
  void store.close().then(() => process.exit(0));
});
