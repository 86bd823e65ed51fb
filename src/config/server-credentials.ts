// Server credentials of the runtime API: named secrets shown once, stored as their SHA-256 only.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import {
  deleteCredentials,
  insertCredential,
  selectCredentialHash,
  selectCredentialHashes,
  selectCredentialNames,
  updateCredentialHash,
} from '../store/config-credentials.js';
import { readGameConfig } from '../store/game-configs.js';
import { canonicalDoc, ids } from './config-build.js';
import type { CredentialView } from './config-types.js';
import { configErrors } from './errors.js';
import { type AuditWrap, changeGame, type Db } from './game-lock.js';

export interface CreatedCredential extends CredentialView {
  secret: string;
}

/** 32 random bytes: enough entropy that a plain SHA-256 (no salt, no stretching) is a safe stored form. */
function newCredentialSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a secret: lowercase hex SHA-256 of its UTF-8 text. */
export function hashCredentialSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export async function listCredentials(db: Db, apiKey: string): Promise<CredentialView[]> {
  const names = await selectCredentialNames(db, apiKey);
  return names.map((name) => ({ '@id': ids.credential(name), name }));
}

export async function getCredential(db: Db, apiKey: string, name: string): Promise<CredentialView> {
  if ((await loadCredentialHash(db, apiKey, name)) === undefined) throw configErrors.credentialNotFound(name);
  return { '@id': ids.credential(name), name };
}

/** Internal (runtime API): the stored hash of a credential's secret, undefined when there is no such credential. */
export async function loadCredentialHash(db: Db, apiKey: string, name: string): Promise<string | undefined> {
  return selectCredentialHash(db, apiKey, name);
}

/** Internal (snapshot copy to another game): every credential's hash by name. */
export async function loadCredentialHashes(db: Db, apiKey: string): Promise<Record<string, string>> {
  return Object.fromEntries(await selectCredentialHashes(db, apiKey));
}

/** Internal (runtime API): whether `secret` is the credential's current secret; constant-time comparison. */
export async function verifyCredentialSecret(
  db: Db,
  apiKey: string,
  name: string,
  secret: string,
): Promise<boolean> {
  const stored = await loadCredentialHash(db, apiKey, name);
  if (stored === undefined) return false;
  const given = Buffer.from(hashCredentialSecret(secret), 'hex');
  const expected = Buffer.from(stored, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function createCredential(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  audit?: AuditWrap,
): Promise<CreatedCredential> {
  return changeGame(
    pool,
    apiKey,
    async (client) => {
      if ((await loadCredentialHash(client, apiKey, name)) !== undefined) {
        throw configErrors.duplicate(ids.credential(name));
      }
      const secret = newCredentialSecret();
      await insertCredential(client, apiKey, name, hashCredentialSecret(secret));
      return { '@id': ids.credential(name), name, secret };
    },
    audit,
  );
}

export async function resetCredentialSecret(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  audit?: AuditWrap,
): Promise<{ secret: string }> {
  return changeGame(
    pool,
    apiKey,
    async (client) => {
      const secret = newCredentialSecret();
      const found = await updateCredentialHash(client, apiKey, name, hashCredentialSecret(secret));
      if (!found) throw configErrors.credentialNotFound(name);
      return { secret };
    },
    audit,
  );
}

export async function deleteCredential(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  audit?: AuditWrap,
): Promise<void> {
  await changeGame(
    pool,
    apiKey,
    async (client) => {
      // A callback script runs through its credential's URL: delete the script first (CONFIG_IN_USE).
      const doc = canonicalDoc((await readGameConfig(client, apiKey))?.doc);
      if ((doc['~scripts'] ?? []).some((s) => s.folder === 'callbacks' && s.shortCode === name)) {
        throw configErrors.inUse(ids.credential(name), [ids.script('callbacks', name)]);
      }
      if (!(await deleteCredentials(client, apiKey, name))) throw configErrors.credentialNotFound(name);
    },
    audit,
  );
}

/**
 * Makes the game's credentials exactly `names`, in that order. A name keeps a hash from `carried` first, else its
 * current hash, else gets a fresh secret that nobody has seen (resetSecret reveals a new one).
 */
export async function replaceCredentials(
  client: pg.PoolClient,
  apiKey: string,
  names: string[],
  carried: Record<string, string>,
): Promise<void> {
  const current = await loadCredentialHashes(client, apiKey);
  await deleteCredentials(client, apiKey);
  for (const [position, name] of names.entries()) {
    const hash =
      ownValue(carried, name) ?? ownValue(current, name) ?? hashCredentialSecret(newCredentialSecret());
    await insertCredential(client, apiKey, name, hash, position);
  }
}

// Names come from clients: "constructor" must not find Object.prototype's.
function ownValue(record: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
