// The data import: items back into data_items with their version, TTL and update time, as the data export wrote them.
import type pg from 'pg';
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
      column('type'),
      column('id'),
      column('text'),
      column('version'),
      column('expiresAt'),
      column('updatedAt'),
      new Date(now),
    ],
  );
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
