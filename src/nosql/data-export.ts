// The lines of a data-service export: every live item of a game's stage, all types, read from one snapshot.
import type pg from 'pg';
import { type ExportItemRow, readStageItems } from '../store/data-items.js';
import { storedToCanonical } from './canonical-json.js';
import type { DataItemLine } from './export/ndjson-writer.js';
import type { Stage } from './scope.js';

const date = (d: Date) => ({ $date: { $numberLong: String(d.getTime()) } });

/** One line, every value canonical extended JSON: `{type, id, data, version, expiresAt, updatedAt}`. */
export function toDataLine(row: ExportItemRow): DataItemLine {
  return {
    type: row.type,
    id: row.item_id,
    data: storedToCanonical(row.data),
    version: { $numberLong: row.version },
    expiresAt: row.expires_at === null ? null : date(row.expires_at),
    updatedAt: date(row.updated_at),
  };
}

/**
 * One export line per item of the game's stage that has not expired at `now` (epoch ms), by type then id; items
 * of types no longer declared are included too, as they are still stored.
 */
export async function* readDataItemLines(
  pool: pg.Pool,
  game: string,
  stage: Stage,
  now: number,
  batchSize?: number,
): AsyncGenerator<DataItemLine> {
  const rows = readStageItems(pool, { game, stage }, now, batchSize);
  for await (const batch of rows) {
    for (const row of batch) yield toDataLine(row);
  }
}
