// JWT signing keys: Ed25519 pairs kept in the control database, the newest signs, all unexpired ones verify.
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyObject } from 'jose';
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import type { Db } from '../store/scope.js';
import {
  hasSigningKey,
  insertSigningKey,
  type KeyRow,
  retireSigningKeys,
  selectVerifyingKeys,
  withFirstKeyLock,
} from '../store/signing-keys.js';
import type { AuthAudit } from './auth-audit.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface KeyRing {
  /** The key new tokens are signed with (created on first use). */
  current(): Promise<SigningKey>;
  /** Public keys as a JWKS document. */
  jwks(): Promise<{ keys: JWK[] }>;
  /**
   * New signing key; the old one keeps verifying until every token it signed has expired. One transaction, with
   * the write's audit entry when `audit` is given (the route; the command line records none).
   */
  rotate(audit?: AuthAudit): Promise<string>;
  /** Drops the cache so the next call rereads the table (another process may have rotated). */
  refresh(): void;
}

// Tokens live at most one hour; a retired key is published a little longer for clock skew.
const RETIRED_KEY_VERIFIES_MS = 65 * 60 * 1000;
const CACHE_MS = 30_000;

/**
 * `verifyOnly`: a cluster's replica holds the public halves only (docs/topology.md); it verifies and never signs.
 */
export function createKeyRing(pool: pg.Pool, clock: () => number, verifyOnly = false): KeyRing {
  let cache: { at: number; rows: KeyRow<JWK>[]; signing: SigningKey | undefined } | undefined;

  async function load(): Promise<NonNullable<typeof cache>> {
    if (cache && clock() - cache.at < CACHE_MS) return cache;
    const rows = await selectVerifyingKeys<JWK>(pool, new Date(clock()));
    const active = rows.find((r) => r.retired_at === null);
    const signing =
      active && !verifyOnly
        ? { kid: active.kid, privateKey: (await importJWK(active.private_jwk, 'EdDSA')) as KeyObject }
        : undefined;
    cache = { at: clock(), rows, signing };
    return cache;
  }

  // Takes the client to write with: on PGlite the pool has one connection, which the caller may be holding.
  async function create(db: Db): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const kid = `${new Date(clock()).toISOString().slice(0, 10)}-${randomBytes(6).toString('hex')}`;
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA', use: 'sig' };
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
    await insertSigningKey(db, kid, { privateJwk, publicJwk }, new Date(clock()));
    return kid;
  }

  return {
    async current() {
      if (verifyOnly) throw new Error('a cluster replica never signs');
      const loaded = await load();
      if (loaded.signing) return loaded.signing;
      // First use: the advisory lock keeps two processes from both creating a first key.
      await withFirstKeyLock(pool, async (client) => {
        if (!(await hasSigningKey(client))) await create(client);
      });
      cache = undefined;
      const reloaded = await load();
      if (!reloaded.signing) throw new Error('no signing key after creation');
      return reloaded.signing;
    },
    async jwks() {
      const loaded = await load();
      return { keys: loaded.rows.map((r) => r.public_jwk) };
    },
    async rotate(audit) {
      if (verifyOnly) throw new Error('a cluster replica never rotates keys');
      const kid = await withTransaction(pool, async (client) => {
        await retireSigningKeys(client, new Date(clock()), new Date(clock() + RETIRED_KEY_VERIFIES_MS));
        const created = await create(client);
        await audit?.(client);
        return created;
      });
      cache = undefined;
      return kid;
    },
    refresh() {
      cache = undefined;
    },
  };
}
