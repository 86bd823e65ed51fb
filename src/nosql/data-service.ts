// The key-value data service's core: items with a version and a TTL, read, written and queried through the
// store (src/store/data-items.ts), with the service's rules and errors.
import { type Doc, fromStored, isDoc } from '../query/values.js';
import {
  deleteItemRow,
  type ItemRow,
  queryItemRows,
  readItem,
  type TypeScope,
  updateItemAt,
  upsertItem,
} from '../store/data-items.js';
import { dataErrors } from './data-errors.js';
import type { DataQuery, IndexedField } from './data-query.js';
import type { Db } from './scope.js';
import { storedDocument } from './wire.js';

export { deleteAllItems, purgeExpiredItems, type TypeScope } from '../store/data-items.js';

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

// Fastify's router refuses longer path parameters (414) before any handler runs.
const MAX_ID = 100;

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

export async function getItem(db: Db, scope: TypeScope, id: string, now: number): Promise<DataItem> {
  const row = await readItem(db, scope, id, now);
  if (!row) throw dataErrors.itemNotFound(scope.type, id);
  return toItem(scope.type, row);
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
  const check = input.versionCheck;
  const row =
    check === undefined || check === 0
      ? await upsertItem(db, scope, id, { text, expires, onlyIfAbsent: check === 0 }, now)
      : await updateItemAt(db, scope, id, { text, expires, version: check }, now);
  if (!row) throw dataErrors.versionConflict(scope.type, id, check ?? 0);
  return toItem(scope.type, row);
}

/** Deletes one item (404 when absent or expired); with versionCheck only at that version (409 otherwise). */
export async function deleteItem(
  db: Db,
  scope: TypeScope,
  id: string,
  now: number,
  versionCheck?: number,
): Promise<void> {
  if (await deleteItemRow(db, scope, id, now, versionCheck)) return;
  if (versionCheck !== undefined && (await readItem(db, scope, id, now))) {
    throw dataErrors.versionConflict(scope.type, id, versionCheck);
  }
  throw dataErrors.itemNotFound(scope.type, id);
}

/** One page of the items matching the query; nextOffset is null on the last page. */
export async function queryItems(
  db: Db,
  scope: TypeScope,
  query: DataQuery,
  now: number,
): Promise<{ items: DataItem[]; nextOffset: number | null }> {
  const rows = await queryItemRows(db, scope, query, now);
  const more = rows.length > query.limit;
  const items = rows.slice(0, query.limit).map((r) => toItem(scope.type, r));
  return { items, nextOffset: more ? query.offset + query.limit : null };
}
