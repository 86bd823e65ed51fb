// Database CPU per statement, on one connection: the statements the server sends for Q1, Q2, Q3 and Q5 (compiled by
// the store's own functions), beside their typed-table baselines, from the backend's CPU time in /proc over
// STATEMENTS runs, in ROUNDS rounds. Reads run both unnamed (planned at every run) and named, as the server runs
// them on cached plans (store/query.ts planCachedQuery). Part of `npm run bench nosql-overhead` (PostgreSQL
// only, same machine).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { readDocument, storedDocument, withId } from '../src/nosql/wire.js';
import { parseFindOptions } from '../src/query/find-options.js';
import { compileSort } from '../src/query/sort.js';
import { idKey } from '../src/query/values.js';
import { countSql } from '../src/store/document-counts.js';
import { compileWhere, selectSql } from '../src/store/document-reads.js';
import { arrayFacts } from '../src/store/multikey.js';
import { orderedBy } from '../src/store/read-plans.js';
import { loadTypedPlayers } from './nosql-bare-sql.js';
import { DOCS, player } from './nosql-data.js';

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 2000);
const ROUNDS = 3;

type Statement = pg.QueryConfig;

function backendCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Each case's database CPU per statement (µs), one figure per round. */
export async function statementCosts(url: string, game: string): Promise<Record<string, number[]>> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const scope = { game, stage: 'preview' as const, collection: 'player' };
  try {
    await loadTypedPlayers(pool, { game, stage: 'preview', players: 'player', scan: 'none' }, DOCS, true);
    const pid = (await pool.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
    await pool.query('SET synchronous_commit = off');
    // As autovacuum would after the bulk load (the entries' own settings, migration 0020): index-only counts.
    await pool.query('VACUUM nosql_key_entries');
    const name = () => `Player ${Math.floor(Math.random() * DOCS)}`;
    const playbase = async (body: Record<string, unknown>, name?: string): Promise<Statement> => {
      const o = parseFindOptions(body);
      const facts = await arrayFacts(pool, scope);
      const sort = compileSort(o.sort, 'doc', undefined, facts);
      facts.orderedBy = orderedBy(o);
      const where = compileWhere(scope, o.filter, facts);
      const unordered = o.sort.length === 0;
      const limit = unordered ? 101 : o.limit;
      const { text, values } = selectSql(where, sort, {
        afterId: undefined,
        offset: o.skip,
        limit,
        ordered: !unordered,
      });
      return { text, values, ...(name ? { name } : {}) };
    };
    const insert = (named: boolean): Statement => {
      // The stored form and id key the server would bind (nosql/documents.ts).
      const doc = withId(readDocument(player(DOCS + Math.floor(Math.random() * 1e9)), 'player'), Date.now);
      return {
        ...(named ? { name: 'bench_insert' } : {}),
        text: `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
               SELECT $1, $2, $3, u.id, u.doc::jsonb FROM unnest($4::text[], $5::text[]) AS u(id, doc)`,
        values: [game, 'preview', 'player', [idKey(doc._id!)], [storedDocument(doc)]],
      };
    };
    const count = async (entries: boolean): Promise<Statement> => {
      const facts = await arrayFacts(pool, scope);
      if (!entries) facts.keyEntries = () => undefined;
      const country = ['GB', 'FR', 'DE', 'US', 'JP'][Math.floor(Math.random() * 5)];
      const { text, values } = countSql(scope, parseFindOptions({ query: { country } }).filter, facts);
      // As the server runs them: the entries count planned at each run, the documents count on a cached plan.
      return entries ? { text, values } : { text, values, name: 'bench_q3_documents' };
    };
    // The count entries' trigger off, for the insert's cost without them (migration 0020).
    const keyTrigger = (on: boolean) =>
      pool.query(
        `ALTER TABLE nosql_documents ${on ? 'ENABLE' : 'DISABLE'} TRIGGER nosql_documents_key_insert`,
      );
    const cases: Record<string, () => Promise<Statement> | Statement> = {
      'Q1 typed table': () => ({
        text: 'SELECT * FROM bench_players WHERE display_name = $1',
        values: [name()],
      }),
      'Q1 Playbase': () => playbase({ query: { displayName: name() } }),
      'Q1 Playbase, cached plan': () => playbase({ query: { displayName: name() } }, 'bench_q1'),
      'Q2 typed table': () => ({
        text: 'SELECT * FROM bench_players WHERE level > $1 ORDER BY level DESC LIMIT $2',
        values: [90, 20],
      }),
      'Q2 Playbase': () => playbase({ query: { level: { $gt: 90 } }, sort: { level: -1 }, limit: 20 }),
      'Q2 Playbase, cached plan': () =>
        playbase({ query: { level: { $gt: 90 } }, sort: { level: -1 }, limit: 20 }, 'bench_q2'),
      'Q3 typed table': () => ({
        text: 'SELECT count(*) FROM bench_players WHERE country = $1',
        values: [['GB', 'FR', 'DE', 'US', 'JP'][Math.floor(Math.random() * 5)]],
      }),
      'Q3 Playbase, count entries': () => count(true),
      'Q3 Playbase, over the documents, cached plan': () => count(false),
      'Q5 insert, unnamed': () => insert(false),
      'Q5 insert, named prepared statement': () => insert(true),
      'Q5 insert, named, without the count entries trigger': () => insert(true),
    };
    const around: Record<string, [() => Promise<unknown>, () => Promise<unknown>]> = {
      'Q5 insert, named, without the count entries trigger': [
        () => keyTrigger(false),
        () => keyTrigger(true),
      ],
    };
    const out: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, make] of Object.entries(cases)) {
        const statements: Statement[] = [];
        for (let i = 0; i < STATEMENTS; i++) statements.push(await make());
        await around[label]?.[0]();
        const before = backendCpuMicros(pid);
        for (const s of statements) await pool.query(s);
        const perStatement = Math.round((backendCpuMicros(pid) - before) / STATEMENTS);
        await around[label]?.[1]();
        out[label] = [...(out[label] ?? []), perStatement];
      }
    }
    for (const [label, rounds] of Object.entries(out))
      console.log(`database CPU per statement, ${label}: ${rounds.join(' ')} µs`);
    return out;
  } finally {
    await pool.end();
  }
}
