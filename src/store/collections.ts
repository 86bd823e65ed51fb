// The nosql_collections table: the catalogue of created collections (runtime script.* and meta meta.*) of a game's
// stage. Configured and system collections are not in it: they exist by the configuration.
import type pg from 'pg';
import { query } from './query.js';
import type { Db, GameScope, Scope } from './scope.js';

export type CreatedKind = 'runtime' | 'meta';

/** The kind the catalogue records for the collection, or undefined when it was never created. */
export async function createdKind(db: Db, scope: Scope): Promise<string | undefined> {
  const { rows } = await query<{ kind: string }>(
    db,
    'SELECT kind FROM nosql_collections WHERE game_id = $1 AND stage = $2 AND collection = $3',
    [scope.game, scope.stage, scope.collection],
  );
  return rows[0]?.kind;
}

/** Every created collection of the game's stage, by name. */
export async function createdCollections(
  db: Db,
  scope: GameScope,
): Promise<Array<{ collection: string; kind: string }>> {
  const { rows } = await query<{ collection: string; kind: string }>(
    db,
    'SELECT collection, kind FROM nosql_collections WHERE game_id = $1 AND stage = $2 ORDER BY collection',
    [scope.game, scope.stage],
  );
  return rows;
}

/** Records created collections; one already recorded is kept as it is. */
export async function recordCollections(
  db: Db,
  scope: GameScope,
  made: ReadonlyMap<string, CreatedKind>,
  at: Date,
): Promise<void> {
  if (made.size === 0) return;
  await query(
    db,
    `INSERT INTO nosql_collections (game_id, stage, collection, kind, created_at)
     SELECT $1, $2, u.collection, u.kind, $5 FROM unnest($3::text[], $4::text[]) AS u(collection, kind)
     ON CONFLICT (game_id, stage, collection) DO NOTHING`,
    [scope.game, scope.stage, [...made.keys()], [...made.values()], at],
  );
}

export async function forgetCollection(db: Db, scope: Scope): Promise<void> {
  await query(db, 'DELETE FROM nosql_collections WHERE game_id = $1 AND stage = $2 AND collection = $3', [
    scope.game,
    scope.stage,
    scope.collection,
  ]);
}

/** The meta collections of the game's stage, by name. */
export async function metaCollectionNames(db: Db, scope: GameScope): Promise<string[]> {
  const rows = await createdCollections(db, scope);
  return rows.filter((r) => r.kind === 'meta').map((r) => r.collection);
}

/** Inside the caller's transaction: the stage's meta collections become exactly `names`. */
export async function replaceMetaCollections(
  client: pg.PoolClient,
  scope: GameScope,
  names: readonly string[],
  at: Date,
): Promise<void> {
  await client.query(`DELETE FROM nosql_collections WHERE game_id = $1 AND stage = $2 AND kind = 'meta'`, [
    scope.game,
    scope.stage,
  ]);
  const made = new Map(names.map((n) => [n, 'meta' as const]));
  await recordCollections(client, scope, made, at);
}
