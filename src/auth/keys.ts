// JWT signing keys: Ed25519 pairs kept in the control database, the newest signs, all unexpired ones verify.
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyObject } from 'jose';
import type pg from 'pg';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface KeyRing {
  /** The key new tokens are signed with (created on first use). */
  current(): Promise<SigningKey>;
  /** Public keys as a JWKS document. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** New signing key; the old one keeps verifying until every token it signed has expired. */
  rotate(): Promise<string>;
  /** Drops the cache so the next call rereads the table (another process may have rotated). */
  refresh(): void;
}

interface KeyRow {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  retired_at: Date | null;
}

// Tokens live at most one hour; a retired key is published a little longer for clock skew.
const RETIRED_KEY_VERIFIES_MS = 65 * 60 * 1000;
const CACHE_MS = 30_000;

export function createKeyRing(pool: pg.Pool, clock: () => number): KeyRing {
  let cache: { at: number; rows: KeyRow[]; signing: SigningKey | undefined } | undefined;

  async function load(): Promise<NonNullable<typeof cache>> {
    if (cache && clock() - cache.at < CACHE_MS) return cache;
    const { rows } = await pool.query<KeyRow>(
      `SELECT kid, private_jwk, public_jwk, retired_at FROM signing_keys
       WHERE retire_after IS NULL OR retire_after > $1 ORDER BY created_at DESC, kid`,
      [new Date(clock())],
    );
    const active = rows.find((r) => r.retired_at === null);
    const signing = active
      ? { kid: active.kid, privateKey: (await importJWK(active.private_jwk, 'EdDSA')) as KeyObject }
      : undefined;
    cache = { at: clock(), rows, signing };
    return cache;
  }

  // Takes the client to write with: on PGlite the pool has one connection, which the caller may be holding.
  async function create(db: pg.Pool | pg.PoolClient): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = `${new Date(clock()).toISOString().slice(0, 10)}-${randomBytes(6).toString('hex')}`;
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA', use: 'sig' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
    await db.query(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) VALUES ($1, $2, $3, $4)',
      [kid, privateJwk, publicJwk, new Date(clock())],
    );
    return kid;
  }

  return {
    async current() {
      const loaded = await load();
      if (loaded.signing) return loaded.signing;
      // First use: the advisory lock keeps two processes from both creating a first key.
      const client = await pool.connect();
      let unlockFailure: Error | undefined;
      try {
        await client.query('SELECT pg_advisory_lock(74042027)');
        const { rows } = await client.query('SELECT 1 FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
        if (rows.length === 0) await create(client);
      } finally {
        // Always released: a client kept after a failed unlock would be lost to the pool for good. Destroyed
        // then, so that its session (and the advisory lock it may still hold) ends with it.
        await client.query('SELECT pg_advisory_unlock(74042027)').catch((e: Error) => {
          unlockFailure = e;
        });
        client.release(unlockFailure);
      }
      cache = undefined;
      const reloaded = await load();
      if (!reloaded.signing) throw new Error('no signing key after creation');
      return reloaded.signing;
    },
    async jwks() {
      const loaded = await load();
      return { keys: loaded.rows.map((r) => r.public_jwk) };
    },
    async rotate() {
      const now = new Date(clock());
      await pool.query(
        'UPDATE signing_keys SET retired_at = $1, retire_after = $2 WHERE retired_at IS NULL',
        [now, new Date(clock() + RETIRED_KEY_VERIFIES_MS)],
      );
      const kid = await create(pool);
      cache = undefined;
      return kid;
    },
    refresh() {
      cache = undefined;
    },
  };
}
