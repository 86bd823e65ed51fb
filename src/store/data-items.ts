// The data_items table: the data service's items (one type of one game in one stage), with a version and a TTL.
//
// Time is the caller's `now` (epoch ms, the server clock), never the database's: an item is gone for every read
// from the millisecond its expires_at passes, whatever the purge has done yet.
import type pg from 'pg';
import { compileOrder, compileWhere, type DataQuery } from './data-item-query.js';
import type { Db, Stage } from './scope.js';
import { readSnapshot } from './snapshot-cursor.js';

/** One data type of one game in one stage: the tenant scope of every call here. */
export interface TypeScope {
  game: string;
  stage: Stage;
  type: string;
}

export interface ItemRow {
  item_id: string;
  data: unknown;
  version: string;
  expires_at: Date | null;
}

/** An item's new content: its stored JSON text and its expiry (null: no TTL). */
export interface ItemWrite {
  text: string;
  expires: Date | null;
}

// "Not expired" at the time bound in $4 of every statement below.
const LIVE = '(expires_at IS NULL OR expires_at > $4)';
const KEY = 'game_id = $1 AND stage = $2 AND type = $3';
const COLUMNS = 'item_id, data, version, expires_at';

function keyParams(scope: TypeScope, id: string, now: number): unknown[] {
  return [scope.game, scope.stage, scope.type, new Date(now), id];
}

/** The live item, or undefined. */
export async function readItem(
  db: Db,
  scope: TypeScope,
  id: string,
  now: number,
): Promise<ItemRow | undefined> {
  const { rows } = await db.query<ItemRow>(
    `SELECT ${COLUMNS} FROM data_items WHERE ${KEY} AND item_id = $5 AND ${LIVE}`,
    keyParams(scope, id, now),
  );
  return rows[0];
}

/**
 * Writes the item, raising its version by one; an expired item counts as absent and starts again at 1. With
 * onlyIfAbsent a live item is left as it is and nothing is answered.
 */
export async function upsertItem(
  db: Db,
  scope: TypeScope,
  id: string,
  write: ItemWrite & { onlyIfAbsent: boolean },
  now: number,
): Promise<ItemRow | undefined> {
  const expired = 'data_items.expires_at IS NOT NULL AND data_items.expires_at <= $4';
  const { rows } = await db.query<ItemRow>(
    `INSERT INTO data_items (game_id, stage, type, item_id, data, version, expires_at, updated_at)
     VALUES ($1, $2, $3, $5, $6::jsonb, 1, $7, $4)
     ON CONFLICT (game_id, stage, type, item_id) DO UPDATE SET
       data = EXCLUDED.data, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at,
       version = CASE WHEN ${expired} THEN 1 ELSE data_items.version + 1 END
     ${write.onlyIfAbsent ? `WHERE ${expired}` : ''}
     RETURNING ${COLUMNS}`,
    [...keyParams(scope, id, now), write.text, write.expires],
  );
  return rows[0];
}

/** Writes the live item only if it is at `version`; undefined when it is not (or is absent). */
export async function updateItemAt(
  db: Db,
  scope: TypeScope,
  id: string,
  write: ItemWrite & { version: number },
  now: number,
): Promise<ItemRow | undefined> {
  // Under concurrent writers PostgreSQL re-checks the WHERE on the newest row version: one of them wins.
  const { rows } = await db.query<ItemRow>(
    `UPDATE data_items SET data = $6::jsonb, expires_at = $7, updated_at = $4, version = version + 1
     WHERE ${KEY} AND item_id = $5 AND ${LIVE} AND version = $8
     RETURNING ${COLUMNS}`,
    [...keyParams(scope, id, now), write.text, write.expires, write.version],
  );
  return rows[0];
}

/** Deletes the live item (only at `version` when given); answers whether it did. */
export async function deleteItemRow(
  db: Db,
  scope: TypeScope,
  id: string,
  now: number,
  version: number | undefined,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM data_items WHERE ${KEY} AND item_id = $5 AND ${LIVE} AND ($6::bigint IS NULL OR version = $6)`,
    [...keyParams(scope, id, now), version ?? null],
  );
  return Boolean(rowCount);
}

/** Deletes every item of the type; answers how many were live (expired rows go too, uncounted). */
export async function deleteAllItems(db: Db, scope: TypeScope, now: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH gone AS (DELETE FROM data_items WHERE ${KEY} RETURNING expires_at)
     SELECT count(*) FILTER (WHERE ${LIVE}) AS n FROM gone`,
    [scope.game, scope.stage, scope.type, new Date(now)],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The live items matching the query, one page and one row more (so the caller knows whether more follow). */
export async function queryItemRows(
  db: Db,
  scope: TypeScope,
  query: DataQuery,
  now: number,
): Promise<ItemRow[]> {
  const params: unknown[] = [scope.game, scope.stage, scope.type, new Date(now)];
  const where = query.where ? ` AND ${compileWhere(query.where, params)}` : '';
  const order = compileOrder(query.sort, params);
  params.push(query.offset, query.limit + 1);
  const { rows } = await db.query<ItemRow>(
    `SELECT ${COLUMNS} FROM data_items WHERE ${KEY} AND ${LIVE}${where}
     ORDER BY ${order} OFFSET $${params.length - 1} LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/**
 * Deletes expired items of every game, in batches so that no statement holds locks (or the embedded store's
 * one connection) for long; stops after `maxBatches` and leaves the rest to the next run.
 */
export async function purgeExpiredItems(
  db: Db,
  now: number,
  batchSize = 5000,
  maxBatches = 20,
): Promise<number> {
  let removed = 0;
  for (let i = 0; i < maxBatches; i++) {
    const { rowCount } = await db.query(
      `DELETE FROM data_items WHERE (game_id, stage, type, item_id) IN (
         SELECT game_id, stage, type, item_id FROM data_items WHERE expires_at <= $1 LIMIT $2)`,
      [new Date(now), batchSize],
    );
    removed += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) break;
  }
  return removed;
}

export interface ExportItemRow extends ItemRow {
  type: string;
  updated_at: Date;
}

/** Every item of the game's stage live at `now`, by type then id, in batches read from one snapshot (exports). */
export function readStageItems(
  pool: pg.Pool,
  scope: { game: string; stage: Stage },
  now: number,
  batchSize?: number,
): AsyncGenerator<ExportItemRow[]> {
  return readSnapshot<ExportItemRow>(
    pool,
    `SELECT type, item_id, data, version, expires_at, updated_at FROM data_items
     WHERE game_id = $1 AND stage = $2 AND (expires_at IS NULL OR expires_at > $3) ORDER BY type, item_id`,
    [scope.game, scope.stage, new Date(now)],
    batchSize,
  );
}

/** Items as an import gives them: stored data text, version, expiry and update time, column by column. */
export interface ImportedItems {
  types: string[];
  ids: string[];
  texts: string[];
  versions: string[];
  expires: Array<Date | null>;
  updated: Date[];
}

/**
 * Inserts imported items; one of the same type and id that has expired at `now` is replaced, a live one kept.
 * Answers the (type, id) pairs written.
 */
export async function importItems(
  client: pg.PoolClient,
  scope: { game: string; stage: Stage },
  items: ImportedItems,
  now: number,
): Promise<Array<{ type: string; item_id: string }>> {
  const { rows } = await client.query<{ type: string; item_id: string }>(
    `INSERT INTO data_items (game_id, stage, type, item_id, data, version, expires_at, updated_at)
     SELECT $1, $2, u.type, u.id, u.data::jsonb, u.version::bigint, u.expires_at, u.updated_at
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])
       AS u(type, id, data, version, expires_at, updated_at)
     ON CONFLICT (game_id, stage, type, item_id) DO UPDATE SET data = EXCLUDED.data, version = EXCLUDED.version,
       expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at
       WHERE data_items.expires_at IS NOT NULL AND data_items.expires_at <= $9
     RETURNING type, item_id`,
    [
      scope.game,
      scope.stage,
      items.types,
      items.ids,
      items.texts,
      items.versions,
      items.expires,
      items.updated,
      new Date(now),
    ],
  );
  return rows;
}
