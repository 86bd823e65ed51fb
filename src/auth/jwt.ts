// Game JWTs: EdDSA only, key id in the header, claims carrying one game's permissions.
import {
  createLocalJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from 'jose';
import { isPlaybaseError } from '../errors.js';
import { deepFreeze } from './auth-cache.js';
import { authErrors } from './errors.js';
import type { KeyRing } from './keys.js';
import type { Permissions } from './permissions.js';

const JWT_ISSUER = 'playbase';

export interface GameClaims {
  sub: string;
  username: string;
  apiKey: string;
  /** `{<apiKey>: {key: level}}`, as the original platform carried them. */
  permissions: Record<string, Permissions>;
  groups: string[];
  scope: string;
  owner: boolean;
  iat: number;
  /**
   * The issue instant in ms: `iat` is in whole seconds, too coarse to tell a JWT issued just before the account's
   * sessions were ended from one issued just after (sessions.ts). Absent from JWTs signed before it existed.
   */
  iatMs?: number;
  exp: number;
}

/** `issuedAtMs` (the `iatMs` claim) may be a little past `nowMs`: see issueStamp in sessions.ts. */
export async function signGameJwt(
  keys: KeyRing,
  claims: Omit<GameClaims, 'iat' | 'iatMs' | 'exp'>,
  nowMs: number,
  lifetimeSeconds: number,
  issuedAtMs = nowMs,
): Promise<{ token: string; expiresAt: number }> {
  const key = await keys.current();
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + lifetimeSeconds;
  const token = await new SignJWT({ ...claims, iatMs: issuedAtMs })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, expiresAt: exp * 1000 };
}

type Verify = (token: string, nowMs: number) => Promise<GameClaims>;

export interface JwtVerifier extends Verify {
  /** The claims of a token verified a moment ago, without waiting; undefined when it must be verified. */
  remembered(token: string, nowMs: number): GameClaims | undefined;
}

type KeySource = Parameters<typeof jwtVerify>[1];

function verifierFrom(getKeys: (nowMs: number) => Promise<KeySource>): Verify {
  return async (token, nowMs) => {
    let payload: JWTPayload;
    // Outside the try: a store or auth server that cannot give the keys is not a bad token (503, not 401).
    const keys = await getKeys(nowMs);
    try {
      ({ payload } = await jwtVerify(token, keys as never, {
        algorithms: ['EdDSA'],
        issuer: JWT_ISSUER,
        currentDate: new Date(nowMs),
      }));
    } catch (e) {
      if (isPlaybaseError(e)) throw e;
      if (e instanceof joseErrors.JWTExpired) throw authErrors.tokenExpired();
      throw authErrors.badJwt();
    }
    if (
      typeof payload.apiKey !== 'string' ||
      typeof payload.username !== 'string' ||
      typeof payload.permissions !== 'object'
    ) {
      throw authErrors.badJwt();
    }
    return payload as unknown as GameClaims;
  };
}

// A verified JWT is remembered for a minute: an Ed25519 check costs far more than the rest
// of a request. The expiry is still checked on every use, and a key deleted from the store stops a cached
// token within this minute.
const VERIFIED_FOR_MS = 60_000;
const VERIFIED_MAX = 10_000;

// Known by its signature: hashing the whole token (some 500 characters) for the map took longer than the rest
// of the check. The whole text is still compared before a remembered answer is given.
const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

function rememberVerified(verify: Verify): JwtVerifier {
  const verified = new Map<string, { at: number; token: string; claims: GameClaims }>();
  const remembered = (token: string, nowMs: number): GameClaims | undefined => {
    const hit = verified.get(signatureOf(token));
    if (!hit || hit.token !== token || nowMs - hit.at >= VERIFIED_FOR_MS || nowMs < hit.at) return undefined;
    // The rule jose applies: expired once exp is not after the current second.
    if (hit.claims.exp <= Math.floor(nowMs / 1000)) throw authErrors.tokenExpired();
    return hit.claims;
  };
  const verifier = async (token: string, nowMs: number): Promise<GameClaims> => {
    const hit = remembered(token, nowMs);
    if (hit) return hit;
    const claims = deepFreeze(await verify(token, nowMs));
    if (verified.size >= VERIFIED_MAX) verified.clear();
    verified.set(signatureOf(token), { at: nowMs, token, claims });
    return claims;
  };
  return Object.assign(verifier, { remembered });
}

/** Verifies against the keys in this process's store (the auth role runs here). */
export function localJwtVerifier(keys: KeyRing): JwtVerifier {
  let cached: { jwks: string; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  const verify = verifierFrom(async () => {
    const jwks = await keys.jwks();
    const text = JSON.stringify(jwks);
    if (!cached || cached.jwks !== text) cached = { jwks: text, set: createLocalJWKSet(jwks) };
    return cached.set as unknown as KeySource;
  });
  return rememberVerified(async (token, nowMs) => {
    try {
      return await verify(token, nowMs);
    } catch (e) {
      // An unknown kid may be a key another auth process rotated in: reread once.
      if ((e as { code?: string }).code !== 'JWT_INVALID') throw e;
      keys.refresh();
      return verify(token, nowMs);
    }
  });
}

// Split mode: a JWKS older than this is refetched in the background; an unknown kid refetches at most this often.
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 5_000;

/**
 * Verifies against the auth server's JWKS over HTTP (split mode). The last good document is kept: a failed
 * refetch never drops it, so JWT traffic goes on while the auth server is down (jose's remote set would refuse
 * every token once its cache aged). Only a process that never reached the auth server answers 503.
 */
export function remoteJwtVerifier(authUrl: string): JwtVerifier {
  const url = `${authUrl}/restv2/auth/.well-known/jwks.json`;
  let held: { at: number; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  let triedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | undefined;

  function refetch(nowMs: number): Promise<void> {
    triedAt = nowMs;
    pending ??= (async () => {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'error' });
        if (res.ok) held = { at: nowMs, set: createLocalJWKSet((await res.json()) as JSONWebKeySet) };
      } catch {
        // Keep what we have: the auth server may be down or restarting.
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  }

  return rememberVerified(
    verifierFrom(async (nowMs) => {
      const cooled = nowMs - triedAt >= JWKS_COOLDOWN_MS;
      if (!held) await (pending ?? (cooled ? refetch(nowMs) : undefined));
      else if (cooled && nowMs - held.at > JWKS_MAX_AGE_MS) void refetch(nowMs);
      const first = held?.set;
      if (!first) throw authErrors.authServerUnavailable();
      const lookup = async (header: Parameters<typeof first>[0], token: Parameters<typeof first>[1]) => {
        try {
          return await first(header, token);
        } catch (e) {
          // An unknown kid may be a key the auth server rotated in since the last fetch.
          if (!(e instanceof joseErrors.JWKSNoMatchingKey) || nowMs - triedAt < JWKS_COOLDOWN_MS) throw e;
          await refetch(nowMs);
          return (held?.set ?? first)(header, token);
        }
      };
      return lookup as unknown as KeySource;
    }),
  );
}
