// The data import: items back into the data service's store with their version, TTL and update time, as the data export wrote them.
import type pg from 'pg';
import { importItems } from '../../store/data-items.js';
import { type DataType, loadDataTypes } from '../data-types.js';
import type { GameScope } from '../scope.js';
import { importErrors } from './errors.js';
import { type ItemRecord, parseItemLine } from './records.js';
import type { Importer } from './run-import.js';

/** The stage's declared types; none when the stage runs no configuration or the database has no configuration. */
async function declaredTypes(pool: pg.Pool, scope: GameScope): Promise<Map<string, DataType>> {
  const types = await loadDataTypes(pool, scope.game, scope.stage).catch((e: { code?: string }) => {
    if (e.code === '42P01') return [];
    throw e;
  });
  return new Map(types.map((t) => [t.shortCode, t]));
}

/**
 * Inserts the items. An item of the same type and id that has expired counts as absent (every read already
 * treats it so) and is replaced; a live one fails the import naming the line.
 */
async function insertItems(client: pg.PoolClient, scope: GameScope, records: ItemRecord[], now: number) {
  const column = <K extends keyof ItemRecord>(k: K) => records.map((r) => r[k]);
  const items = {
    types: column('type'),
    ids: column('id'),
    texts: column('text'),
    versions: column('version'),
    expires: column('expiresAt'),
    updated: column('updatedAt'),
  };
  const rows = await importItems(client, scope, items, now);
  if (rows.length === records.length) return;
  const written = new Set(rows.map((r) => `${r.type}\u0000${r.item_id}`));
  const first = records.find((r) => !written.has(`${r.type}\u0000${r.id}`));
  if (first)
    throw importErrors.conflict(first.line, `data type ${first.type} already holds an item ${first.id}`);
}

export async function openDataImport(
  pool: pg.Pool,
  scope: GameScope,
  clock: () => number,
): Promise<Importer<ItemRecord>> {
  const declared = await declaredTypes(pool, scope);
  return {
    parse: (line) => parseItemLine(line, declared, clock()),
    key: (r) => `${r.type}\u0000${r.id}`,
    group: (r) => r.type,
    bytes: (r) => r.text.length + 200,
    scopeOf: () => undefined,
    write: (client, records) => insertItems(client, scope, records, clock()),
    async finish() {},
  };
}
