// Server credentials of the runtime API: named secrets shown once, stored as their SHA-256 only.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { ids } from './config-build.js';
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
  const { rows } = await db.query<{ name: string }>(
    'SELECT name FROM config_credentials WHERE api_key = $1 ORDER BY position, name',
    [apiKey],
  );
  return rows.map((r) => ({ '@id': ids.credential(r.name), name: r.name }));
}

export async function getCredential(db: Db, apiKey: string, name: string): Promise<CredentialView> {
  if ((await loadCredentialHash(db, apiKey, name)) === undefined) throw configErrors.credentialNotFound(name);
  return { '@id': ids.credential(name), name };
}

/** Internal (runtime API): the stored hash of a credential's secret, undefined when there is no such credential. */
export async function loadCredentialHash(db: Db, apiKey: string, name: string): Promise<string | undefined> {
  const { rows } = await db.query<{ secret_hash: string }>(
    'SELECT secret_hash FROM config_credentials WHERE api_key = $1 AND name = $2',
    [apiKey, name],
  );
  return rows[0]?.secret_hash;
}

/** Internal (snapshot copy to another game): every credential's hash by name. */
export async function loadCredentialHashes(db: Db, apiKey: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; secret_hash: string }>(
    'SELECT name, secret_hash FROM config_credentials WHERE api_key = $1',
    [apiKey],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.secret_hash]));
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
      await client.query(
        `INSERT INTO config_credentials (api_key, name, secret_hash, position)
       VALUES ($1, $2, $3, (SELECT coalesce(max(position), -1) + 1 FROM config_credentials WHERE api_key = $1))`,
        [apiKey, name, hashCredentialSecret(secret)],
      );
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
      const { rowCount } = await client.query(
        'UPDATE config_credentials SET secret_hash = $3 WHERE api_key = $1 AND name = $2',
        [apiKey, name, hashCredentialSecret(secret)],
      );
      if (!rowCount) throw configErrors.credentialNotFound(name);
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
      const { rowCount } = await client.query(
        'DELETE FROM config_credentials WHERE api_key = $1 AND name = $2',
        [apiKey, name],
      );
      if (!rowCount) throw configErrors.credentialNotFound(name);
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
  await client.query('DELETE FROM config_credentials WHERE api_key = $1', [apiKey]);
  for (const [position, name] of names.entries()) {
    const hash =
      ownValue(carried, name) ?? ownValue(current, name) ?? hashCredentialSecret(newCredentialSecret());
    await client.query(
      'INSERT INTO config_credentials (api_key, name, secret_hash, position) VALUES ($1, $2, $3, $4)',
      [apiKey, name, hash, position],
    );
  }
}

// Names come from clients: "constructor" must not find Object.prototype's.
function ownValue(record: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
