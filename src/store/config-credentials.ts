// The config_credentials table: a game's server credentials of the runtime API, by name, in their order, each
// kept as the SHA-256 of its secret (hashing and checking are the callers', src/config/server-credentials.ts).
import type { Db, Stage } from './scope.js';

/** The game's credential names, in their order. */
export async function selectCredentialNames(db: Db, apiKey: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'SELECT name FROM config_credentials WHERE api_key = $1 ORDER BY position, name',
    [apiKey],
  );
  return rows.map((r) => r.name);
}

export async function selectCredentialHash(
  db: Db,
  apiKey: string,
  name: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ secret_hash: string }>(
    'SELECT secret_hash FROM config_credentials WHERE api_key = $1 AND name = $2',
    [apiKey, name],
  );
  return rows[0]?.secret_hash;
}

/** Every credential's hash by name (key order not meaningful). */
export async function selectCredentialHashes(db: Db, apiKey: string): Promise<Array<[string, string]>> {
  const { rows } = await db.query<{ name: string; secret_hash: string }>(
    'SELECT name, secret_hash FROM config_credentials WHERE api_key = $1',
    [apiKey],
  );
  return rows.map((r) => [r.name, r.secret_hash]);
}

/** Adds a credential after the game's last one (`position` given: at that place, for a whole replacement). */
export async function insertCredential(
  db: Db,
  apiKey: string,
  name: string,
  hash: string,
  position?: number,
): Promise<void> {
  if (position === undefined) {
    await db.query(
      `INSERT INTO config_credentials (api_key, name, secret_hash, position)
       VALUES ($1, $2, $3, (SELECT coalesce(max(position), -1) + 1 FROM config_credentials WHERE api_key = $1))`,
      [apiKey, name, hash],
    );
    return;
  }
  await db.query(
    'INSERT INTO config_credentials (api_key, name, secret_hash, position) VALUES ($1, $2, $3, $4)',
    [apiKey, name, hash, position],
  );
}

/** False when the game has no credential by that name. */
export async function updateCredentialHash(
  db: Db,
  apiKey: string,
  name: string,
  hash: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE config_credentials SET secret_hash = $3 WHERE api_key = $1 AND name = $2',
    [apiKey, name, hash],
  );
  return Boolean(rowCount);
}

/** Deletes one credential (false when there was none by that name), or all of the game's without a name. */
export async function deleteCredentials(db: Db, apiKey: string, name?: string): Promise<boolean> {
  const { rowCount } =
    name === undefined
      ? await db.query('DELETE FROM config_credentials WHERE api_key = $1', [apiKey])
      : await db.query('DELETE FROM config_credentials WHERE api_key = $1 AND name = $2', [apiKey, name]);
  return Boolean(rowCount);
}

// Preview accepts the working copy's credentials.
const PREVIEW_GAMES = `
  SELECT c.api_key FROM config_credentials c JOIN games g ON g.api_key = c.api_key AND g.deleted_at IS NULL
  WHERE c.name = $1 AND c.secret_hash = $2 AND ($3::text IS NULL OR c.api_key = $3) LIMIT 2`;

// Live accepts the credentials kept with the published snapshot (a credential made since is not Live yet).
const LIVE_GAMES = `
  SELECT l.api_key FROM admin_snapshots s
    JOIN live_snapshots l ON l.api_key = s.api_key AND l.kind = 'game' AND l.snapshot_id = s.id
    JOIN games g ON g.api_key = l.api_key AND g.deleted_at IS NULL
  WHERE (s.secrets::jsonb -> 'credentialHashes') @> jsonb_build_object($1::text, $2::text)
    AND ($3::text IS NULL OR s.api_key = $3) LIMIT 2`;

/**
 * The games (at most two: enough to tell one from several) whose credential `name` has this secret hash in the
 * stage. The scope is what the caller is looking for: the stage, and the game when the credential named it
 * (`{apiKey}.{name}`), else null for any game.
 */
export async function selectCredentialGames(
  db: Db,
  scope: { stage: Stage; game: string | null },
  name: string,
  hash: string,
): Promise<string[]> {
  const { rows } = await db.query<{ api_key: string }>(scope.stage === 'live' ? LIVE_GAMES : PREVIEW_GAMES, [
    name,
    hash,
    scope.game,
  ]);
  return rows.map((r) => r.api_key);
}
