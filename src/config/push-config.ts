// A game's push credentials as configuration: sealed at rest under a key derived from the server's master secret.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { authErrors } from '../auth/errors.js';
import { type AuditWrap, changeGame, type Db } from './game-lock.js';
import {
  describePushCredentials,
  openPushCredentials,
  type PushCredentials,
  type PushCredentialsView,
  parsePushCredentials,
  sealPushCredentials,
} from './push/credentials.js';
import { deriveKey } from './push/secret-box.js';

const GENERATED_MASTER_KEY = 'master-key';

/**
 * The master secret: PLAYBASE_SECRET_KEY when set, else 32 random bytes generated on first use and kept in
 * server_secrets, so the embedded store works out of the box. That stored key sits beside what it seals, so
 * production deployments should set PLAYBASE_SECRET_KEY (and keep it: changing it makes sealed values unreadable).
 */
export async function resolveMasterSecret(db: Db, secretKey: string | undefined): Promise<string> {
  if (secretKey) return secretKey;
  // Concurrent first uses: one insert wins, everybody reads the winner.
  await db.query('INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    GENERATED_MASTER_KEY,
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1', [
    GENERATED_MASTER_KEY,
  ]);
  return rows[0]?.value as string;
}

/** The key push credentials are sealed with: deriveKey(master secret, 'push-credentials'). */
export async function pushCredentialsKey(db: Db, secretKey: string | undefined): Promise<Buffer> {
  return deriveKey(await resolveMasterSecret(db, secretKey), 'push-credentials');
}

/** Replaces the game's push credentials (`{}` removes them); answers what may be shown of them. */
export async function savePushCredentials(
  pool: pg.Pool,
  apiKey: string,
  input: unknown,
  secretKey: string | undefined,
  audit?: AuditWrap,
): Promise<PushCredentialsView> {
  const credentials = parsePushCredentials(input);
  return changeGame(
    pool,
    apiKey,
    async (client) => {
      if (!credentials.apple && !credentials.google) {
        await client.query('DELETE FROM config_push_credentials WHERE api_key = $1', [apiKey]);
        return {};
      }
      const sealed = sealPushCredentials(credentials, await pushCredentialsKey(client, secretKey), apiKey);
      await client.query(
        `INSERT INTO config_push_credentials (api_key, sealed) VALUES ($1, $2)
       ON CONFLICT (api_key) DO UPDATE SET sealed = EXCLUDED.sealed`,
        [apiKey, sealed],
      );
      return describePushCredentials(credentials);
    },
    audit,
  );
}

/** Internal (push notification tests): the game's push credentials opened; `{}` when none are configured. */
export async function loadPushCredentials(
  db: Db,
  apiKey: string,
  secretKey: string | undefined,
): Promise<PushCredentials> {
  const { rows } = await db.query<{ sealed: string | null }>(
    `SELECT p.sealed FROM games g LEFT JOIN config_push_credentials p ON p.api_key = g.api_key
     WHERE g.api_key = $1 AND g.deleted_at IS NULL`,
    [apiKey],
  );
  if (!rows[0]) throw authErrors.gameNotFound(apiKey);
  const sealed = rows[0].sealed;
  if (!sealed) return {};
  return openPushCredentials(sealed, await pushCredentialsKey(db, secretKey), apiKey);
}

/** What GET ~pushCredentials shows: identifiers only, never keys. */
export async function describeStoredPushCredentials(
  db: Db,
  apiKey: string,
  secretKey: string | undefined,
): Promise<PushCredentialsView> {
  return describePushCredentials(await loadPushCredentials(db, apiKey, secretKey));
}
