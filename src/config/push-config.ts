// A game's push credentials as configuration: sealed at rest under a key derived from the server's master secret.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { authErrors } from '../auth/errors.js';
import {
  deletePushCredentials,
  ensureServerSecret,
  readLiveGameSealedPushCredentials,
  writeSealedPushCredentials,
} from '../store/push-credentials.js';
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
async function resolveMasterSecret(db: Db, secretKey: string | undefined): Promise<string> {
  if (secretKey) return secretKey;
  return ensureServerSecret(db, GENERATED_MASTER_KEY, randomBytes(32).toString('base64url'));
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
        await deletePushCredentials(client, apiKey);
        return {};
      }
      const sealed = sealPushCredentials(credentials, await pushCredentialsKey(client, secretKey), apiKey);
      await writeSealedPushCredentials(client, apiKey, sealed);
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
  const row = await readLiveGameSealedPushCredentials(db, apiKey);
  if (!row) throw authErrors.gameNotFound(apiKey);
  const sealed = row.sealed;
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
