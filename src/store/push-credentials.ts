// The config_push_credentials table (a game's push credentials, sealed) and server_secrets (the generated master
// secret). Callers seal and open; this module only stores the sealed text.
import type { Db } from './scope.js';

/** The game's sealed push credentials, or null when it has none. */
export async function readSealedPushCredentials(db: Db, apiKey: string): Promise<string | null> {
  const { rows } = await db.query<{ sealed: string }>(
    'SELECT sealed FROM config_push_credentials WHERE api_key = $1',
    [apiKey],
  );
  return rows[0]?.sealed ?? null;
}

/** Like readSealedPushCredentials, but undefined when the game does not exist or is in the recycle bin. */
export async function readLiveGameSealedPushCredentials(
  db: Db,
  apiKey: string,
): Promise<{ sealed: string | null } | undefined> {
  const { rows } = await db.query<{ sealed: string | null }>(
    `SELECT p.sealed FROM games g LEFT JOIN config_push_credentials p ON p.api_key = g.api_key
     WHERE g.api_key = $1 AND g.deleted_at IS NULL`,
    [apiKey],
  );
  return rows[0];
}

/** Stores the game's sealed push credentials, replacing any it had. */
export async function writeSealedPushCredentials(db: Db, apiKey: string, sealed: string): Promise<void> {
  await db.query(
    `INSERT INTO config_push_credentials (api_key, sealed) VALUES ($1, $2)
     ON CONFLICT (api_key) DO UPDATE SET sealed = EXCLUDED.sealed`,
    [apiKey, sealed],
  );
}

export async function deletePushCredentials(db: Db, apiKey: string): Promise<void> {
  await db.query('DELETE FROM config_push_credentials WHERE api_key = $1', [apiKey]);
}

/** The server secret `name`, stored as `candidate` on first use; concurrent first uses all read the winner. */
export async function ensureServerSecret(db: Db, name: string, candidate: string): Promise<string> {
  await db.query('INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    candidate,
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1', [
    name,
  ]);
  return rows[0]?.value as string;
}
