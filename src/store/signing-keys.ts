// The signing_keys table: the Ed25519 pairs that sign and verify JWTs (generating and importing them is the
// caller's, src/auth/keys.ts). Server-level: no game scope, every call takes the db first.
import type pg from 'pg';
import type { Db } from './scope.js';

export interface KeyRow<J> {
  kid: string;
  private_jwk: J;
  public_jwk: J;
  retired_at: Date | null;
}

/** Keys that still verify at `now` (not retired, or retired less long ago than they are published), newest first. */
export async function selectVerifyingKeys<J>(db: Db, now: Date): Promise<KeyRow<J>[]> {
  const { rows } = await db.query<KeyRow<J>>(
    `SELECT kid, private_jwk, public_jwk, retired_at FROM signing_keys
     WHERE retire_after IS NULL OR retire_after > $1 ORDER BY created_at DESC, kid`,
    [now],
  );
  return rows;
}

export async function insertSigningKey<J>(
  db: Db,
  kid: string,
  jwks: { privateJwk: J; publicJwk: J },
  at: Date,
): Promise<void> {
  await db.query(
    'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) VALUES ($1, $2, $3, $4)',
    [kid, jwks.privateJwk, jwks.publicJwk, at],
  );
}

/** True when a key signs (one not retired). */
export async function hasSigningKey(db: Db): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
  return rows.length > 0;
}

/** Retires the signing key at `at`; it goes on verifying until `retireAfter`. */
export async function retireSigningKeys(db: Db, at: Date, retireAfter: Date): Promise<void> {
  await db.query('UPDATE signing_keys SET retired_at = $1, retire_after = $2 WHERE retired_at IS NULL', [
    at,
    retireAfter,
  ]);
}

/**
 * Runs `fn` on one connection holding the first-key advisory lock (a session lock, 74042027), which keeps two
 * processes from both creating a first key.
 */
export async function withFirstKeyLock<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let unlockFailure: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(74042027)');
    return await fn(client);
  } finally {
    // Always released: a client kept after a failed unlock would be lost to the pool for good. Destroyed
    // then, so that its session (and the advisory lock it may still hold) ends with it.
    await client.query('SELECT pg_advisory_unlock(74042027)').catch((e: Error) => {
      unlockFailure = e;
    });
    client.release(unlockFailure);
  }
}
