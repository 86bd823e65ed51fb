// Game JWTs: EdDSA only, key id in the header, claims carrying one game's permissions.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from 'jose';
import { authErrors } from './errors.js';
import type { KeyRing } from './keys.js';
import type { Permissions } from './permissions.js';

export const JWT_ISSUER = 'playbase';

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
  exp: number;
}

export async function signGameJwt(
  keys: KeyRing,
  claims: Omit<GameClaims, 'iat' | 'exp'>,
  nowMs: number,
  lifetimeSeconds: number,
): Promise<{ token: string; expiresAt: number }> {
  const key = await keys.current();
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + lifetimeSeconds;
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, expiresAt: exp * 1000 };
}

export type JwtVerifier = (token: string, nowMs: number) => Promise<GameClaims>;

type KeySource = Parameters<typeof jwtVerify>[1];

function verifierFrom(getKeys: () => Promise<KeySource>): JwtVerifier {
  return async (token, nowMs) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (await getKeys()) as never, {
        algorithms: ['EdDSA'],
        issuer: JWT_ISSUER,
        currentDate: new Date(nowMs),
      }));
    } catch (e) {
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

/** Verifies against the keys in this process's store (the auth role runs here). */
export function localJwtVerifier(keys: KeyRing): JwtVerifier {
  let cached: { jwks: string; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  const verify = verifierFrom(async () => {
    const jwks = await keys.jwks();
    const text = JSON.stringify(jwks);
    if (!cached || cached.jwks !== text) cached = { jwks: text, set: createLocalJWKSet(jwks) };
    return cached.set as unknown as KeySource;
  });
  return async (token, nowMs) => {
    try {
      return await verify(token, nowMs);
    } catch (e) {
      // An unknown kid may be a key another auth process rotated in: reread once.
      if ((e as { code?: string }).code !== 'JWT_INVALID') throw e;
      keys.refresh();
      return verify(token, nowMs);
    }
  };
}

/** Verifies against the auth server's JWKS over HTTP (split mode); jose caches it and refetches on unknown kids. */
export function remoteJwtVerifier(authUrl: string): JwtVerifier {
  const set = createRemoteJWKSet(new URL(`${authUrl}/restv2/auth/.well-known/jwks.json`), {
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
  });
  return verifierFrom(async () => set as unknown as KeySource);
}
