// The key-value data service's core: items with a version and a TTL in data_items, read, written and queried.
//
// Time is the caller's `now` (epoch ms, the server clock), never the database's: an item is gone for every read
// from the millisecond its expires_at passes, whatever the purge has done yet.
import { type Doc, fromStored, isDoc } from '../query/values.js';
import { dataErrors } from './data-errors.js';
import { compileOrder, compileWhere, type DataQuery, type IndexedField } from './data-query.js';
import type { Db, Stage } from './scope.js';
import { storedDocument } from './wire.js';

/** One data type of one game in one stage: the tenant scope of every call here. */
export interface TypeScope {
  game: string;
  stage: Stage;
  type: string;
}

export interface DataItem {
  type: string;
  id: string;
  data: Doc;
  /** 1 after the first write, +1 for each write after it. */
  version: number;
  /** Epoch ms, or null when the item has no TTL. */
  expiresAt: number | null;
}

export interface PutInput {
  data: Doc;
  /** Seconds; undefined or 0: no TTL. */
  ttlSeconds: number | undefined;
  /** Write only if the stored version is this (0: only if there is no item). */
  versionCheck: number | undefined;
}

interface ItemRow {
  item_id: string;
  data: unknown;
  version: string;
  expires_at: Date | null;
}

// Fastify's router refuses longer path parameters (414) before any handler runs.
const MAX_ID = 100;
// "Not expired" at the time bound in $4 of every statement below.
const LIVE = '(expires_at IS NULL OR expires_at > $4)';
const KEY = 'game_id = $1 AND stage = $2 AND type = $3';

/** Item ids go in the URL path: any text of 1 to 100 characters without control characters. */
export function checkItemId(id: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (id.length === 0 || id.length > MAX_ID || /[\u0000-\u001f\u007f]/.test(id)) throw dataErrors.badItemId();
  return id;
}

/** Each declared field the item holds must be of its declared type (null counts as "no value"). */
export function checkIndexedFields(data: Doc, fields: readonly IndexedField[]): void {
  for (const field of fields) {
    if (!Object.hasOwn(data, field.name)) continue;
    const v = data[field.name];
    const ok =
      v === null ||
      (field.type === 'string' ? typeof v === 'string' : typeof v === 'number' && Number.isFinite(v));
    if (!ok)
      throw dataErrors.fieldTypeMismatch(field.name, field.type === 'number' ? 'finite number' : 'string');
  }
}

function toItem(type: string, row: ItemRow): DataItem {
  const data = fromStored(row.data);
  return {
    type,
    id: row.item_id,
    data: isDoc(data) ? data : {},
    version: Number(row.version),
    expiresAt: row.expires_at === null ? null : row.expires_at.getTime(),
  };
}

function keyParams(scope: TypeScope, id: string, now: number): unknown[] {
  return [scope.game, scope.stage, scope.type, new Date(now), id];
}

export async function getItem(db: Db, scope: TypeScope, id: string, now: number): Promise<DataItem> {
  const { rows } = await db.query<ItemRow>(
    `SELECT item_id, data, version, expires_at FROM data_items WHERE ${KEY} AND item_id = $5 AND ${LIVE}`,
    keyParams(scope, id, now),
  );
  if (!rows[0]) throw dataErrors.itemNotFound(scope.type, id);
  return toItem(scope.type, rows[0]);
}

/**
 * Writes the item: its data and TTL are replaced, its version raised by one. An expired item counts as absent,
 * so writing over it starts again at version 1. With versionCheck, a stale version writes nothing (409).
 */
export async function putItem(
  db: Db,
  scope: TypeScope,
  id: string,
  input: PutInput,
  now: number,
): Promise<DataItem> {
  const text = storedDocument(input.data);
  const expires = input.ttlSeconds ? new Date(now + input.ttlSeconds * 1000) : null;
  const params = [...keyParams(scope, id, now), text, expires];
  const check = input.versionCheck;
  const rows =
    check === undefined || check === 0
      ? await upsert(db, params, check === 0)
      : await updateAt(db, params, check);
  if (!rows[0]) throw dataErrors.versionConflict(scope.type, id, check ?? 0);
  return toItem(scope.type, rows[0]);
}

async function upsert(db: Db, params: unknown[], onlyIfAbsent: boolean): Promise<ItemRow[]> {
  const expired = 'data_items.expires_at IS NOT NULL AND data_items.expires_at <= $4';
  const { rows } = await db.query<ItemRow>(
    `INSERT INTO data_items (game_id, stage, type, item_id, data, version, expires_at, updated_at)
     VALUES ($1, $2, $3, $5, $6::jsonb, 1, $7, $4)
     ON CONFLICT (game_id, stage, type, item_id) DO UPDATE SET
       data = EXCLUDED.data, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at,
       version = CASE WHEN ${expired} THEN 1 ELSE data_items.version + 1 END
     ${onlyIfAbsent ? `WHERE ${expired}` : ''}
     RETURNING item_id, data, version, expires_at`,
    params,
  );
  return rows;
}

async function updateAt(db: Db, params: unknown[], version: number): Promise<ItemRow[]> {
  // Under concurrent writers PostgreSQL re-checks the WHERE on the newest row version: one of them wins.
  const { rows } = await db.query<ItemRow>(
    `UPDATE data_items SET data = $6::jsonb, expires_at = $7, updated_at = $4, version = version + 1
     WHERE ${KEY} AND item_id = $5 AND ${LIVE} AND version = $8
     RETURNING item_id, data, version, expires_at`,
    [...params, version],
  );
  return rows;
}

/** Deletes one item (404 when absent or expired); with versionCheck only at that version (409 otherwise). */
export async function deleteItem(
  db: Db,
  scope: TypeScope,
  id: string,
  now: number,
  versionCheck?: number,
): Promise<void> {
  const params = keyParams(scope, id, now);
  const { rowCount } = await db.query(
    `DELETE FROM data_items WHERE ${KEY} AND item_id = $5 AND ${LIVE} AND ($6::bigint IS NULL OR version = $6)`,
    [...params, versionCheck ?? null],
  );
  if (rowCount) return;
  if (versionCheck !== undefined) {
    const { rows } = await db.query(
      `SELECT 1 FROM data_items WHERE ${KEY} AND item_id = $5 AND ${LIVE}`,
      params,
    );
    if (rows.length > 0) throw dataErrors.versionConflict(scope.type, id, versionCheck);
  }
  throw dataErrors.itemNotFound(scope.type, id);
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

/** One page of the items matching the query; nextOffset is null on the last page. */
export async function queryItems(
  db: Db,
  scope: TypeScope,
  query: DataQuery,
  now: number,
): Promise<{ items: DataItem[]; nextOffset: number | null }> {
  const params: unknown[] = [scope.game, scope.stage, scope.type, new Date(now)];
  const where = query.where ? ` AND ${compileWhere(query.where, params)}` : '';
  const order = compileOrder(query.sort, params);
  params.push(query.offset, query.limit + 1);
  const { rows } = await db.query<ItemRow>(
    `SELECT item_id, data, version, expires_at FROM data_items WHERE ${KEY} AND ${LIVE}${where}
     ORDER BY ${order} OFFSET $${params.length - 1} LIMIT $${params.length}`,
    params,
  );
  const more = rows.length > query.limit;
  const items = rows.slice(0, query.limit).map((r) => toItem(scope.type, r));
  return { items, nextOffset: more ? query.offset + query.limit : null };
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
