// The one authentication layer: each route declares the credentials it accepts and the permission it needs.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthBackend } from './backend.js';
import { authErrors } from './errors.js';
import type { GameAccess } from './game-access.js';
import type { GameClaims } from './jwt.js';
import { claimedAccess, narrowedAccess } from './jwt-access.js';
import { type Level, levelOf } from './permissions.js';
import { type AccountState, endedBefore, jwtIssuedAtMs } from './sessions.js';
import type { TokenOwner } from './tokens.js';

export type CredentialKind = 'basic' | 'token' | 'jwt';

export interface AuthRequirement {
  /**
   * Accepted credentials; default: all three on a route that names a game permission (auth, config, admin
   * routes), Basic and access token elsewhere. The nosql role declares ['jwt']. A JWT is bound to one game: a
   * route without a game permission (accounts, the list of games, creating or restoring a game) never takes one.
   */
  credentials?: CredentialKind[];
  /** Game permission needed; the game is the route's :apiKey or :gameApiKey. */
  permission?: [key: string, level: Level];
  /** Platform administrator only. */
  admin?: boolean;
  /** Authenticated, but no game is involved (own account, list of own games). */
  anyUser?: boolean;
}

export interface Principal {
  username: string;
  kind: CredentialKind;
  isAdmin: boolean;
  /** The raw access token, when that was the credential (log out, password change). */
  accessToken?: string;
  /** The JWT's claims, when that was the credential. */
  claims?: GameClaims;
  game?: GameAccess;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    /** Set by the authentication hook; null (the request decorator's value) on routes without a requirement. */
    playbaseAuth: Principal | null;
  }
}

const HEADER_TOKEN = 'x-svcaccesstoken';
const HEADER_JWT = 'x-svc-jwt';
const NAMES: Record<CredentialKind, string> = { basic: 'Basic', token: 'X-SVCAccessToken', jwt: 'X-SVC-JWT' };

interface Presented {
  kind: CredentialKind;
  value: string;
}

// The scheme name is case-insensitive (RFC 7235).
const BASIC = /^basic +(.*)$/i;

/** The credential of `kind` the request carries, if it carries one. */
function presentedValue(request: FastifyRequest, kind: CredentialKind): string | undefined {
  if (kind === 'jwt') {
    const jwt = request.headers[HEADER_JWT];
    return typeof jwt === 'string' && jwt ? jwt : undefined;
  }
  if (kind === 'token') {
    const header = request.headers[HEADER_TOKEN];
    if (typeof header === 'string' && header) return header;
    const query = (request.query as Record<string, unknown> | undefined)?.['X-SVCAccessToken'];
    return typeof query === 'string' && query ? query : undefined;
  }
  const authorization = request.headers.authorization;
  const basic = authorization ? BASIC.exec(authorization) : null;
  return basic ? (basic[1] ?? '').trim() : undefined;
}

/**
 * A JWT first, then a token, then Basic: the route takes the first it accepts, so a client that sends its JWT
 * everywhere can still get a new one with its access token.
 */
const PRECEDENCE: CredentialKind[] = ['jwt', 'token', 'basic'];
/** What a route without a `credentials` list takes (authentication, configuration and administration). */
const ALL_CREDENTIALS: CredentialKind[] = ['basic', 'token', 'jwt'];
/** ... unless it names no game permission: a JWT carries one game's permissions and nothing else. */
const ACCOUNT_CREDENTIALS: CredentialKind[] = ['basic', 'token'];

/** The credentials a route takes; a route declaring a JWT without a game permission is a mistake, refused at start. */
function acceptedCredentials(need: AuthRequirement): CredentialKind[] {
  if (need.permission) return need.credentials ?? ALL_CREDENTIALS;
  if (need.credentials?.includes('jwt'))
    throw new Error('a route that takes a JWT must declare the game permission it needs');
  return need.credentials ?? ACCOUNT_CREDENTIALS;
}

function gameOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, string | undefined>;
  return params.apiKey ?? params.gameApiKey;
}

function jwtPrincipal(claims: GameClaims): Principal {
  return { username: claims.username, kind: 'jwt', isAdmin: false, claims, game: claimedAccess(claims) };
}

/**
 * Where the accounts can be read: a JWT of a disabled account, or issued before its account's sessions were
 * last ended (sessions.ts), is refused.
 */
function checkAccount(claims: GameClaims, account: AccountState): void {
  if (account.disabled) throw authErrors.badJwt();
  if (endedBefore(jwtIssuedAtMs(claims), account)) throw authErrors.tokenRevoked();
}

function tokenPrincipal(owner: TokenOwner, token: string): Principal {
  return { username: owner.username, kind: 'token', isAdmin: owner.isAdmin, accessToken: token };
}

async function principalFrom(
  backend: AuthBackend,
  request: FastifyRequest,
  cred: Presented,
): Promise<Principal> {
  if (cred.kind === 'basic') {
    const decoded = Buffer.from(cred.value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw authErrors.badCredentials();
    const account = await backend.verifyBasic(decoded.slice(0, colon), decoded.slice(colon + 1), request.ip);
    return { username: account.username, kind: 'basic', isAdmin: account.isAdmin };
  }
  if (cred.kind === 'token') return tokenPrincipal(await backend.verifyToken(cred.value), cred.value);
  const claims = await backend.verifyJwt(cred.value);
  checkAccount(claims, await backend.accountState(claims.username));
  return jwtPrincipal(claims);
}

/**
 * The game whose access must be looked up for the route's permission, or undefined when there is none to look up.
 * Basic and tokens: the game's collaborators are read. JWTs: bound to their game; where the control database is
 * at hand the holder's current access is read too, so that a removed collaborator's JWT stops at once.
 */
function gameToLookUp(
  request: FastifyRequest,
  principal: Principal,
  need: AuthRequirement,
  readsControl: boolean,
): string | undefined {
  if (need.admin && !principal.isAdmin) throw authErrors.adminOnly();
  if (!need.permission) return undefined;
  const apiKey = gameOf(request);
  // Fail closed: a game permission on a route without the game in its path would otherwise check nothing.
  if (!apiKey) throw new Error(`${request.routeOptions.url} declares a game permission but has no :apiKey`);
  if (principal.kind !== 'jwt') return apiKey;
  if (principal.game?.apiKey !== apiKey) throw authErrors.wrongGame();
  return readsControl ? apiKey : undefined;
}

/** The principal's access to the game: a JWT holds the lower of what it carries and what its holder has now. */
function withGame(principal: Principal, current: GameAccess): Principal {
  principal.game = principal.claims ? narrowedAccess(principal.claims, current) : current;
  return principal;
}

function checkLevel(principal: Principal, need: AuthRequirement): void {
  if (!need.permission) return;
  const [key, level] = need.permission;
  if (levelOf(principal.game?.permissions ?? {}, key) < level) throw authErrors.forbidden(key, level);
}

/** The caller, from remembered answers alone; undefined when the store (or the auth server) must be asked. */
function principalNow(
  backend: AuthBackend,
  request: FastifyRequest,
  cred: Presented,
  need: AuthRequirement,
): Principal | undefined {
  let principal: Principal;
  if (cred.kind === 'jwt') {
    const claims = backend.remembered.jwt(cred.value);
    const account = claims && backend.remembered.accountState(claims.username);
    if (!claims || account === undefined) return undefined;
    checkAccount(claims, account);
    principal = jwtPrincipal(claims);
  } else if (cred.kind === 'token') {
    const owner = backend.remembered.token(cred.value);
    if (!owner) return undefined;
    principal = tokenPrincipal(owner, cred.value);
  } else {
    return undefined;
  }
  const apiKey = gameToLookUp(request, principal, need, backend.readsControl);
  if (apiKey !== undefined) {
    const game = backend.remembered.gameAccess(apiKey, principal.username);
    if (!game) return undefined;
    withGame(principal, game);
  }
  checkLevel(principal, need);
  return principal;
}

/** The presented credential the route takes; 401 when there is none, or none it accepts. */
function credentialFor(request: FastifyRequest, accepted: CredentialKind[]): Presented {
  let first: CredentialKind | undefined;
  for (const kind of PRECEDENCE) {
    const value = presentedValue(request, kind);
    if (value === undefined) continue;
    if (accepted.includes(kind)) return { kind, value };
    first ??= kind;
  }
  const names = (joiner: string) => accepted.map((k) => NAMES[k]).join(joiner);
  if (!first) throw authErrors.missingCredentials(names(', '));
  throw authErrors.credentialNotAccepted(NAMES[first], names(' or '));
}

/**
 * The onRequest hook of a route that declares `need` (platform.ts adds it to each such route as it is
 * registered, so no request pays for reading its route's options). A callback hook: a request whose checks are
 * all remembered goes on at once, without a promise or a turn of the microtask queue; the others wait for the
 * store.
 */
export function authenticationHook(backend: AuthBackend, need: AuthRequirement) {
  const accepted = acceptedCredentials(need);
  async function authenticateFromStore(request: FastifyRequest, cred: Presented) {
    const principal = await principalFrom(backend, request, cred);
    const apiKey = gameToLookUp(request, principal, need, backend.readsControl);
    if (apiKey !== undefined) withGame(principal, await backend.gameAccess(apiKey, principal.username));
    checkLevel(principal, need);
    request.playbaseAuth = principal;
  }
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
    let cred: Presented;
    let principal: Principal | undefined;
    try {
      cred = credentialFor(request, accepted);
      principal = principalNow(backend, request, cred, need);
    } catch (e) {
      done(e as Error);
      return;
    }
    if (principal) {
      request.playbaseAuth = principal;
      done();
      return;
    }
    authenticateFromStore(request, cred).then(() => done(), done);
  };
}

/** The authenticated caller; routes with an auth requirement always have one. */
export function principalOf(request: FastifyRequest): Principal {
  const p = request.playbaseAuth;
  if (!p) throw new Error('route reached without authentication; declare config.auth');
  return p;
}
