// The one authentication layer: each route declares the credentials it accepts and the permission it needs.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthBackend } from '../auth/backend.js';
import { authErrors } from '../auth/errors.js';
import type { GameAccess } from '../auth/game-access.js';
import { type Level, levelOf } from '../auth/permissions.js';

export type CredentialKind = 'basic' | 'token' | 'jwt';

export interface AuthRequirement {
  /** Accepted credentials; default: all three (auth, config, admin routes). The nosql role declares ['jwt']. */
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
  game?: GameAccess;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    playbaseAuth?: Principal;
  }
}

const HEADER_TOKEN = 'x-svcaccesstoken';
const HEADER_JWT = 'x-svc-jwt';
const NAMES: Record<CredentialKind, string> = { basic: 'Basic', token: 'X-SVCAccessToken', jwt: 'X-SVC-JWT' };

interface Presented {
  kind: CredentialKind;
  value: string;
}

/**
 * The credentials the request carries, a JWT first, then a token, then Basic. The route takes the first it
 * accepts, so a client that sends its JWT everywhere can still get a new one with its access token.
 */
function presented(request: FastifyRequest): Presented[] {
  const found: Presented[] = [];
  const jwt = request.headers[HEADER_JWT];
  if (typeof jwt === 'string' && jwt) found.push({ kind: 'jwt', value: jwt });
  const header = request.headers[HEADER_TOKEN];
  const query = (request.query as Record<string, unknown> | undefined)?.['X-SVCAccessToken'];
  const token =
    typeof header === 'string' && header ? header : typeof query === 'string' && query ? query : undefined;
  if (token) found.push({ kind: 'token', value: token });
  // The scheme name is case-insensitive (RFC 7235).
  const basic = /^basic +(.*)$/i.exec(request.headers.authorization ?? '');
  if (basic) found.push({ kind: 'basic', value: (basic[1] ?? '').trim() });
  return found;
}

function gameOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, string | undefined>;
  return params.apiKey ?? params.gameApiKey;
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
  if (cred.kind === 'token') {
    const owner = await backend.verifyToken(cred.value);
    return { username: owner.username, kind: 'token', isAdmin: owner.isAdmin, accessToken: cred.value };
  }
  const claims = await backend.verifyJwt(cred.value);
  if (await backend.isDisabled(claims.username)) throw authErrors.badJwt();
  return {
    username: claims.username,
    kind: 'jwt',
    isAdmin: false,
    game: {
      apiKey: claims.apiKey,
      owner: claims.owner === true,
      groups: claims.groups ?? [],
      permissions: claims.permissions[claims.apiKey] ?? {},
    },
  };
}

/** Checks the game permission; for Basic and tokens the game's collaborators are read now, for JWTs the claims speak. */
async function authorize(
  backend: AuthBackend,
  request: FastifyRequest,
  principal: Principal,
  need: AuthRequirement,
): Promise<void> {
  if (need.admin && !principal.isAdmin) throw authErrors.adminOnly();
  if (!need.permission) return;
  const apiKey = gameOf(request);
  // Fail closed: a game permission on a route without the game in its path would otherwise check nothing.
  if (!apiKey) throw new Error(`${request.routeOptions.url} declares a game permission but has no :apiKey`);
  if (principal.kind === 'jwt') {
    if (principal.game?.apiKey !== apiKey) throw authErrors.wrongGame();
  } else {
    principal.game = await backend.gameAccess(apiKey, principal.username);
  }
  const [key, level] = need.permission;
  if (levelOf(principal.game?.permissions ?? {}, key) < level) throw authErrors.forbidden(key, level);
}

export function authenticationHook(backend: AuthBackend) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const need = request.routeOptions.config?.auth;
    if (!need) return;
    const accepted = need.credentials ?? ['basic', 'token', 'jwt'];
    const all = presented(request);
    const first = all[0];
    if (!first) throw authErrors.missingCredentials(accepted.map((k) => NAMES[k]).join(', '));
    const cred = all.find((c) => accepted.includes(c.kind));
    if (!cred) {
      throw authErrors.credentialNotAccepted(NAMES[first.kind], accepted.map((k) => NAMES[k]).join(' or '));
    }
    const principal = await principalFrom(backend, request, cred);
    await authorize(backend, request, principal, need);
    request.playbaseAuth = principal;
  };
}

/** The authenticated caller; routes with an auth requirement always have one. */
export function principalOf(request: FastifyRequest): Principal {
  const p = request.playbaseAuth;
  if (!p) throw new Error('route reached without authentication; declare config.auth');
  return p;
}
