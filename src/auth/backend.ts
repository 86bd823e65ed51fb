// The checks behind the authentication layer, local when this process runs the auth role, remote otherwise.
import type { Redis } from 'ioredis';
import type { Context } from '../context.js';
import { currentSchema } from '../store/db.js';
import { type Account, normalizeUsername, verifyLogin } from './accounts.js';
import { type AuthCache, createAuthCache } from './auth-cache.js';
import { authErrors } from './errors.js';
import { type GameAccess, resolveGameAccess } from './game-access.js';
import { type GameClaims, type JwtVerifier, localJwtVerifier, remoteJwtVerifier } from './jwt.js';
import { createKeyRing, type KeyRing } from './keys.js';
import { createLoginGuard } from './login-guard.js';
import { type AccountState, readAccountState } from './sessions.js';
import { type TokenOwner, verifyAccessToken } from './tokens.js';

export interface AuthBackend {
  keys: KeyRing | undefined;
  /**
   * True where the control database is at hand (auth and config roles): a JWT is then also checked against the
   * account's state and the holder's current access to its game. So does a cluster's replica (PLAYBASE_CLUSTER),
   * whose database holds them for its games. A nosql-only process without one has only the JWT's claims.
   */
  readsControl: boolean;
  verifyBasic(username: string, password: string, address: string): Promise<Account>;
  /**
   * The current password given again by a signed-in caller (password change): counted and throttled like a
   * Basic login, 400 PASSWORD_MISMATCH when wrong, 429 LOGIN_THROTTLED while the account or address is blocked.
   */
  verifyCurrentPassword(username: string, password: string, address: string): Promise<void>;
  verifyToken(token: string): Promise<TokenOwner>;
  verifyJwt(token: string): Promise<GameClaims>;
  gameAccess(apiKey: string, username: string): Promise<GameAccess>;
  /** Disabled, and when its sessions were last ended (neither where !readsControl: the claims are all there is). */
  accountState(username: string): Promise<AccountState>;
  /**
   * What verifyToken, verifyJwt, gameAccess and accountState would answer, when the answer is remembered: no
   * waiting, no promise (the request's fast path). Undefined means ask them; an expired credential throws as
   * they do.
   */
  remembered: {
    token(token: string): TokenOwner | undefined;
    jwt(token: string): GameClaims | undefined;
    gameAccess(apiKey: string, username: string): GameAccess | undefined;
    accountState(username: string): AccountState | undefined;
  };
  /** The remembered checks, dropped on any write to accounts, tokens, games, collaborators or groups. */
  cache: AuthCache;
  close(): Promise<void>;
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

/** Where the accounts cannot be read, a JWT's account is taken as it was when the JWT was issued. */
const UNCHECKED: AccountState = Object.freeze({ disabled: false, sessionsEndedAt: 0 });

export function createAuthBackend(ctx: Context, redis: Redis | undefined): AuthBackend {
  const { store, settings, clock } = ctx;
  const local = settings.roles.includes('auth');
  // A cluster's replica (docs/topology.md) holds, in its own database, what the control database holds for its
  // games: accounts' state, access, and the public signing keys, so it checks JWTs alone, even across a restart.
  const replica = settings.replica.cluster !== undefined;
  const keys = local ? createKeyRing(store.pool, clock) : undefined;
  const jwt: JwtVerifier = keys
    ? localJwtVerifier(keys)
    : replica
      ? localJwtVerifier(createKeyRing(store.pool, clock, true))
      : remoteJwtVerifier(settings.authUrl);
  const remoteToken = local ? undefined : remoteTokenVerifier(settings.authUrl);
  const guard = createLoginGuard({
    perAccount: settings.limits.loginFailuresPerAccount,
    perAddress: settings.limits.loginFailuresPerAddress,
    redis,
    keyPrefix: settings.redisKeyPrefix,
    onThrottled: () => ctx.metrics.limitRefusals.inc({ limit: 'login' }),
  });
  // Where the control database is at hand, its answers are remembered until a trigger announces a write
  // (migration 0009); a split config server asks the auth server every time (spec rule 1).
  const cache = createAuthCache({
    clock,
    ...(store.kind === 'postgres' || local || replica
      ? {
          async listen(channel: string, onNotify: (payload: string) => void, onGap: () => void) {
            // The triggers send their table's schema: other schemas of a shared database are not ours.
            let schema: string | undefined;
            const subscription = await store.listen(
              channel,
              (payload) => (schema === undefined || payload === schema) && onNotify(payload),
              onGap,
            );
            if (subscription.isLive()) {
              schema = await currentSchema(store.pool);
            }
            return subscription;
          },
        }
      : {}),
    onError: (err) =>
      ctx.log.warn({ err }, 'auth cache: cannot listen for changes; every check reads the store'),
  });

  const readsControl = local || settings.roles.includes('config') || replica;
  const unexpired = (owner: TokenOwner): TokenOwner => {
    if (owner.expiresAt <= clock()) throw authErrors.tokenExpired();
    return owner;
  };
  const gameKey = (apiKey: string, username: string) => `${apiKey}\u0000${username}`;

  /** A password check counted per account and address, refused with 429 while either is blocked. */
  async function guardedLogin(username: string, password: string, address: string) {
    // Counted under the name the account is found by, so spelling variants share one count.
    const name = normalizeUsername(username);
    await guard.check(name, address);
    const account = await verifyLogin(store.pool, name, password);
    if (account) await guard.recordSuccess(name);
    else await guard.recordFailure(name, address);
    return account;
  }

  return {
    keys,
    readsControl,
    async verifyBasic(username, password, address) {
      const account = await guardedLogin(username, password, address);
      if (!account) throw authErrors.badCredentials();
      return account;
    },
    async verifyCurrentPassword(username, password, address) {
      if (!(await guardedLogin(username, password, address))) throw authErrors.wrongOldPassword();
    },
    async verifyToken(token) {
      if (remoteToken) return remoteToken(token);
      return unexpired(await cache.get('token', token, () => verifyAccessToken(store.pool, token, clock())));
    },
    verifyJwt: (token) => jwt(token, clock()),
    gameAccess: (apiKey, username) =>
      cache.get('game', gameKey(apiKey, username), () => resolveGameAccess(store.pool, apiKey, username)),
    remembered: {
      token(token) {
        if (remoteToken) return undefined;
        const owner = cache.peek<TokenOwner>('token', token);
        return owner && unexpired(owner);
      },
      jwt: (token) => jwt.remembered(token, clock()),
      gameAccess: (apiKey, username) => cache.peek<GameAccess>('game', gameKey(apiKey, username)),
      accountState: (username) => (readsControl ? cache.peek<AccountState>('account', username) : UNCHECKED),
    },
    async accountState(username) {
      if (!readsControl) return UNCHECKED;
      return cache.get('account', username, () => readAccountState(store.pool, username));
    },
    cache,
    close: () => cache.close(),
  };
}
