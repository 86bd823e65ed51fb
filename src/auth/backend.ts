// The checks behind the authentication layer, local when this process runs the auth role, remote otherwise.
import type { Redis } from 'ioredis';
import type { Context } from '../context.js';
import { type Account, normalizeUsername, verifyLogin } from './accounts.js';
import { authErrors } from './errors.js';
import { type GameAccess, resolveGameAccess } from './game-access.js';
import { type GameClaims, type JwtVerifier, localJwtVerifier, remoteJwtVerifier } from './jwt.js';
import { createKeyRing, type KeyRing } from './keys.js';
import { createLoginGuard } from './login-guard.js';
import { type TokenOwner, verifyAccessToken } from './tokens.js';

export interface AuthBackend {
  keys: KeyRing | undefined;
  verifyBasic(username: string, password: string, address: string): Promise<Account>;
  verifyToken(token: string): Promise<TokenOwner>;
  verifyJwt(token: string): Promise<GameClaims>;
  gameAccess(apiKey: string, username: string): Promise<GameAccess>;
  /** True when the account is disabled now (checked where the control database is at hand). */
  isDisabled(username: string): Promise<boolean>;
}

/** Asks the auth server about an access token (split mode: spec rule 1, always validated there). */
function remoteTokenVerifier(authUrl: string): (token: string) => Promise<TokenOwner> {
  return async (token) => {
    let res: Response;
    try {
      res = await fetch(`${authUrl}/restv2/auth/user/token`, {
        headers: { 'X-SVCAccessToken': token },
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      throw authErrors.authServerUnavailable();
    }
    if (res.status === 401) {
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      throw body.code === 'TOKEN_EXPIRED' ? authErrors.tokenExpired() : authErrors.badToken();
    }
    if (!res.ok) throw authErrors.authServerUnavailable();
    return (await res.json()) as TokenOwner;
  };
}

export function createAuthBackend(ctx: Context, redis: Redis | undefined): AuthBackend {
  const { store, settings, clock } = ctx;
  const local = settings.roles.includes('auth');
  const keys = local ? createKeyRing(store.pool, clock) : undefined;
  const jwt: JwtVerifier = keys ? localJwtVerifier(keys) : remoteJwtVerifier(settings.authUrl);
  const remoteToken = local ? undefined : remoteTokenVerifier(settings.authUrl);
  const guard = createLoginGuard({
    perAccount: settings.limits.loginFailuresPerAccount,
    perAddress: settings.limits.loginFailuresPerAddress,
    redis,
    keyPrefix: settings.redisKeyPrefix,
  });
  const disabledCache = new Map<string, { at: number; disabled: boolean }>();

  return {
    keys,
    async verifyBasic(username, password, address) {
      // Counted under the name the account is found by, so spelling variants share one count.
      const name = normalizeUsername(username);
      await guard.check(name, address);
      const account = await verifyLogin(store.pool, name, password);
      if (!account) {
        await guard.recordFailure(name, address);
        throw authErrors.badCredentials();
      }
      await guard.recordSuccess(name);
      return account;
    },
    verifyToken: (token) =>
      remoteToken ? remoteToken(token) : verifyAccessToken(store.pool, token, clock()),
    verifyJwt: (token) => jwt(token, clock()),
    gameAccess: (apiKey, username) => resolveGameAccess(store.pool, apiKey, username),
    async isDisabled(username) {
      if (!local && !settings.roles.includes('config')) return false;
      // One second of caching keeps JWT traffic off the accounts table; disabling still takes effect at once
      // for access tokens and within a second for JWTs.
      const hit = disabledCache.get(username);
      if (hit && clock() - hit.at < 1000) return hit.disabled;
      const { rows } = await store.pool.query<{ disabled: boolean }>(
        'SELECT disabled FROM accounts WHERE username = $1',
        [username],
      );
      const disabled = rows[0]?.disabled ?? true;
      if (disabledCache.size > 10_000) disabledCache.clear();
      disabledCache.set(username, { at: clock(), disabled });
      return disabled;
    },
  };
}
