// The game_configs table: each game's working configuration document (the Preview stage runs it). Callers make it
// canonical and validate it (src/config/config-store.ts); this module only reads and writes the stored JSON.
import type { ConfigDoc } from '../types/config.js';
import type { Db } from './scope.js';

/** As stored: jsonb keeps no key order, and older rows may lack a collection. */
export type StoredConfigDoc = Partial<ConfigDoc>;

/**
 * The game's document; undefined when the game does not exist or is in the recycle bin, `doc: null` when it
 * has never been written.
 */
export async function readGameConfig(
  db: Db,
  apiKey: string,
): Promise<{ doc: StoredConfigDoc | null } | undefined> {
  const { rows } = await db.query<{ doc: StoredConfigDoc | null }>(
    `SELECT c.doc FROM games g LEFT JOIN game_configs c ON c.api_key = g.api_key
     WHERE g.api_key = $1 AND g.deleted_at IS NULL`,
    [apiKey],
  );
  return rows[0];
}

/** The stored document whatever the game's state (recycle bin included); undefined when there is none. */
export async function readStoredConfig(db: Db, apiKey: string): Promise<StoredConfigDoc | undefined> {
  const { rows } = await db.query<{ doc: StoredConfigDoc }>(
    'SELECT doc FROM game_configs WHERE api_key = $1',
    [apiKey],
  );
  return rows[0]?.doc;
}

/** Stores the document, replacing the game's previous one. */
export async function writeGameConfig(db: Db, apiKey: string, doc: ConfigDoc): Promise<void> {
  await db.query(
    `INSERT INTO game_configs (api_key, doc) VALUES ($1, $2::jsonb)
     ON CONFLICT (api_key) DO UPDATE SET doc = EXCLUDED.doc, updated_at = now()`,
    [apiKey, JSON.stringify(doc)],
  );
}
