// Authentication and authorization errors.
import { def, entriesOf, PlaybaseError } from '../errors.js';

export const authErrors = {
  missingCredentials: def(
    'AUTH_REQUIRED',
    401,
    'No credential was sent; this endpoint needs one of those named in the message.',
    (accepted: string) => `Authentication required (${accepted})`,
  ),
  badCredentials: def(
    'AUTH_INVALID',
    401,
    'The user name or password is wrong, or the account is disabled.',
    () => 'Invalid credentials',
  ),
  badToken: def(
    'TOKEN_INVALID',
    401,
    'The access token is unknown, revoked or malformed.',
    () => 'Invalid access token',
  ),
  tokenExpired: def('TOKEN_EXPIRED', 401, 'The access token or JWT has expired.', () => 'Token expired'),
  tokenRevoked: def(
    'TOKEN_REVOKED',
    401,
    "The access token or JWT was issued before its account's sessions were ended (account disabled, password changed or reset, log out everywhere); log in again.",
    () => 'This token was revoked: log in again',
  ),
  badJwt: def(
    'JWT_INVALID',
    401,
    'The JWT is malformed, wrongly signed, signed with an unknown key or with another algorithm than EdDSA.',
    () => 'Invalid JWT',
  ),
  credentialNotAccepted: def(
    'CREDENTIAL_NOT_ACCEPTED',
    401,
    'This endpoint does not accept that kind of credential (the nosql role takes only X-SVC-JWT).',
    (kind: string, accepted: string) => `${kind} is not accepted here; use ${accepted}`,
  ),
  forbidden: def(
    'PERMISSION_DENIED',
    403,
    'The credential is valid but lacks the permission the endpoint needs.',
    (key: string, level: number) => `Permission ${key} at level ${level} required`,
  ),
  wrongGame: def(
    'JWT_WRONG_GAME',
    403,
    'The JWT was issued for another game.',
    () => 'This JWT was issued for another game',
  ),
  noGameAccess: def(
    'GAME_ACCESS_DENIED',
    403,
    'The caller is neither owner nor collaborator of the game.',
    (apiKey: string) => `No access to game ${apiKey}`,
  ),
  adminOnly: def(
    'ADMIN_REQUIRED',
    403,
    'Only the platform administrator may do this.',
    () => 'Administrator required',
  ),
  gameNotFound: def(
    'GAME_NOT_FOUND',
    404,
    'No game has this API key (or it is in the recycle bin).',
    (apiKey: string) => `Game ${apiKey} not found`,
  ),
  unknownFilter: def(
    'JWT_UNKNOWN_FILTER',
    400,
    'The jwt/{filter} scope is not one of the documented scopes.',
    (filter: string, known: string[]) => `Unknown JWT filter "${filter}" (known: ${known.join(', ')})`,
  ),
  badExpiry: def(
    'EXPIRY_INVALID',
    400,
    'expireInSeconds must be an integer within the allowed range.',
    (max: number) => `expireInSeconds must be an integer from 1 to ${max}`,
  ),
  accountExists: def(
    'ACCOUNT_EXISTS',
    409,
    'An account with this user name exists already.',
    (u: string) => `Account ${u} exists already`,
  ),
  accountNotFound: def(
    'ACCOUNT_NOT_FOUND',
    404,
    'No account has this user name.',
    (u: string) => `Account ${u} not found`,
  ),
  weakPassword: def(
    'PASSWORD_WEAK',
    400,
    'The password is too short (8 characters at least).',
    () => 'Password must be at least 8 characters',
  ),
  wrongOldPassword: def(
    'PASSWORD_MISMATCH',
    400,
    'The current password given does not match.',
    () => 'Current password does not match',
  ),
  groupNotFound: def(
    'GROUP_NOT_FOUND',
    404,
    'No group of this name exists in the game.',
    (n: string) => `Group ${n} not found`,
  ),
  groupExists: def(
    'GROUP_EXISTS',
    409,
    'A group of this name exists already in the game.',
    (n: string) => `Group ${n} exists already`,
  ),
  groupInUse: def(
    'GROUP_IN_USE',
    409,
    'The group is still given to collaborators; remove it from them first.',
    (n: string, who: string[]) => `Group ${n} is given to ${who.join(', ')}`,
  ),
  unknownPermission: def(
    'PERMISSION_UNKNOWN',
    400,
    'A permission key is not in the catalogue, or its level is not 0, 1 or 2.',
    (key: string) => `Unknown permission key or level: ${key}`,
  ),
  collaboratorNotFound: def(
    'COLLABORATOR_NOT_FOUND',
    404,
    'This account is not a collaborator of the game.',
    (e: string) => `Collaborator ${e} not found`,
  ),
  collaboratorExists: def(
    'COLLABORATOR_EXISTS',
    409,
    'This account is a collaborator of the game already.',
    (e: string) => `Collaborator ${e} exists already`,
  ),
  ownerIsNotCollaborator: def(
    'OWNER_NOT_COLLABORATOR',
    400,
    'The owner holds every permission and cannot be a collaborator.',
    () => 'The owner cannot be added as a collaborator',
  ),
  authServerUnavailable: def(
    'AUTH_SERVER_UNAVAILABLE',
    503,
    'The auth server could not be reached to check an access token (split mode).',
    () => 'The authentication server is unavailable',
  ),
};

const loginThrottledBase = def(
  'LOGIN_THROTTLED',
  429,
  'Too many failed logins for this account or from this address; retry after Retry-After seconds.',
  () => 'Too many failed logins; try again later',
);

/** 429 for brute-force protection of Basic logins. */
export function loginThrottled(retryAfterSeconds: number): PlaybaseError {
  const base = loginThrottledBase();
  return new PlaybaseError(base.status, base.code, base.message, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const authCatalogue = entriesOf(authErrors, loginThrottledBase);
