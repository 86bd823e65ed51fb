// The retention of Cloud Code's script log (src/script/log-retention.ts): the entries the server writes to each
// stage's `script.log` collection have ObjectId ids, whose first 4 bytes are the second they were made at. Their
// id key (`{"$oid":"<hex>"}`) sorts by that time, so old entries are a range of the primary key of each game's
// stage, deleted in batches without reading the documents.
import type { Db, GameScope } from './scope.js';

const OID_PREFIX = '{"$oid":"';

/** The game stages that have a script.log collection (it is recorded when its first entry is written). */
export async function scriptLogScopes(db: Db, collection: string): Promise<GameScope[]> {
  const { rows } = await db.query<{ game_id: string; stage: GameScope['stage'] }>(
    'SELECT game_id, stage FROM nosql_collections WHERE collection = $1 ORDER BY game_id, stage',
    [collection],
  );
  return rows.map((r) => ({ game: r.game_id, stage: r.stage }));
}

/**
 * Deletes at most `batch` entries of the stage's log made before `beforeSeconds` (epoch seconds); answers how
 * many. Entries whose id is not an ObjectId (written through the nosql API by hand) are left alone.
 */
export async function deleteScriptLogBefore(
  db: Db,
  scope: GameScope & { collection: string },
  beforeSeconds: number,
  batch: number,
): Promise<number> {
  const hex = Math.max(0, Math.min(0xffffffff, Math.floor(beforeSeconds)))
    .toString(16)
    .padStart(8, '0');
  const res = await db.query(
    `DELETE FROM nosql_documents WHERE (game_id, stage, collection, id) IN (
       SELECT game_id, stage, collection, id FROM nosql_documents
        WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id >= $4 AND id < $5
        ORDER BY id LIMIT $6)`,
    [scope.game, scope.stage, scope.collection, OID_PREFIX, `${OID_PREFIX}${hex}`, batch],
  );
  return res.rowCount ?? 0;
}
