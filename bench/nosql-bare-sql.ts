// The bare baselines' SQL, written by hand the way a developer would: a typed players table (one column per
// field, btree indexes on display_name, level and country) for Q1-Q4, and plain reads of Playbase's own
// nosql_documents rows for the large find and the unindexed scan.
import type pg from 'pg';

type Pool = pg.Pool;

/** The game, stage and collections whose stored documents the baselines read. */
export interface BareScope {
  game: string;
  stage: 'preview';
  players: string;
  scan: string;
}

/**
 * Fills bench_players from the seeded players of Playbase's player collection, converted to typed columns, so
 * that both servers answer over the same generated data. Q5's inserts (player numbers from `seeded` up) are
 * left out: Playbase ran Q1-Q4 before them. VACUUM where the store has autovacuum (PostgreSQL), as the bench
 * does for Playbase's table; ANALYZE on both, as Playbase's index builds do.
 */
export async function loadTypedPlayers(
  pool: Pool,
  scope: BareScope,
  seeded: number,
  vacuum: boolean,
): Promise<number> {
  await pool.query('DROP TABLE IF EXISTS bench_players');
  await pool.query(`CREATE TABLE bench_players (
    id           text PRIMARY KEY,
    user_name    text NOT NULL,
    display_name text NOT NULL,
    currency1    integer NOT NULL,
    level        integer NOT NULL,
    country      text NOT NULL,
    tags         text[] NOT NULL,
    created      timestamptz NOT NULL,
    xp           integer NOT NULL
  )`);
  const loaded = await pool.query(
    `INSERT INTO bench_players
     SELECT doc->'_id'->>'$oid', doc->>'userName', doc->>'displayName', (doc->>'currency1')::int,
            (doc->>'level')::int, doc->>'country', ARRAY(SELECT jsonb_array_elements_text(doc->'tags')),
            to_timestamp((doc->'created'->>'$date')::float8 / 1000), (doc->'scriptData'->>'xp')::int
     FROM nosql_documents
     WHERE game_id = $1 AND stage = $2 AND collection = $3 AND substr(doc->>'userName', 5)::bigint < $4`,
    [scope.game, scope.stage, scope.players, seeded],
  );
  for (const column of ['display_name', 'level', 'country']) {
    await pool.query(`CREATE INDEX bench_players_${column} ON bench_players (${column})`);
  }
  await pool.query(vacuum ? 'VACUUM ANALYZE bench_players' : 'ANALYZE bench_players');
  return loaded.rowCount ?? 0;
}

interface PlayerRow {
  id: string;
  user_name: string;
  display_name: string;
  currency1: number;
  level: number;
  country: string;
  tags: string[];
  created: Date;
  xp: number;
}

/** A row as the document Playbase answers (extended JSON: _id an ObjectId, created a date). */
function playerDoc(r: PlayerRow): Record<string, unknown> {
  return {
    _id: { $oid: r.id },
    userName: r.user_name,
    displayName: r.display_name,
    currency1: r.currency1,
    level: r.level,
    country: r.country,
    tags: r.tags,
    created: { $date: r.created.toISOString() },
    scriptData: { xp: r.xp },
  };
}

/** Q1: a player by display name. */
export async function byDisplayName(pool: Pool, name: string): Promise<unknown[]> {
  const { rows } = await pool.query<PlayerRow>('SELECT * FROM bench_players WHERE display_name = $1', [name]);
  return rows.map(playerDoc);
}

/** Q2: the highest levels above `above`, highest first. */
export async function topLevels(pool: Pool, above: number, limit: number): Promise<unknown[]> {
  const { rows } = await pool.query<PlayerRow>(
    'SELECT * FROM bench_players WHERE level > $1 ORDER BY level DESC LIMIT $2',
    [above, limit],
  );
  return rows.map(playerDoc);
}

/** Q3: how many players a country has. */
export async function countCountry(pool: Pool, country: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM bench_players WHERE country = $1',
    [country],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Q4: players of a country from a level up, with the fields Playbase's Q4 projection keeps. */
export async function countryFromLevel(
  pool: Pool,
  country: string,
  level: number,
  limit: number,
): Promise<unknown[]> {
  const { rows } = await pool.query<{ id: string; display_name: string; level: number; country: string }>(
    'SELECT id, display_name, level, country FROM bench_players WHERE country = $1 AND level >= $2 LIMIT $3',
    [country, level, limit],
  );
  return rows.map((r) => ({
    _id: { $oid: r.id },
    displayName: r.display_name,
    level: r.level,
    country: r.country,
  }));
}

/** Issue 16's aggregation: per country from a level up, the count and the average currency1. */
export async function groupByCountry(pool: Pool, level: number): Promise<unknown[]> {
  const { rows } = await pool.query<{ country: string; n: string; avg: number }>(
    'SELECT country, count(*) AS n, avg(currency1)::float8 AS avg FROM bench_players WHERE level >= $1 GROUP BY country',
    [level],
  );
  return rows.map((r) => ({ _id: r.country, n: Number(r.n), avg: r.avg }));
}

/** The large find's rows: the first `limit` stored documents of the player collection in id order, as text. */
export async function firstDocuments(pool: Pool, scope: BareScope, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ doc: string }>(
    `SELECT doc::text AS doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3
     ORDER BY id LIMIT $4`,
    [scope.game, scope.stage, scope.players, limit],
  );
  return rows.map((r) => r.doc);
}

/** The unindexed equality: every stored document of the scan collection tested with ->> (no index). */
export async function scanByUserName(pool: Pool, scope: BareScope, userName: string): Promise<string[]> {
  const { rows } = await pool.query<{ doc: string }>(
    `SELECT doc::text AS doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3
     AND doc->>'userName' = $4`,
    [scope.game, scope.stage, scope.scan, userName],
  );
  return rows.map((r) => r.doc);
}
