// Routes of the auth role for the caller's own sessions: log in and out, access tokens, password, JWTs, keys.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { NO_BODY } from '../route/openapi.js';
import { writePolicy } from '../route/policy.js';
import { changeOwnPassword, getAccount } from './accounts.js';
import { authAudit } from './auth-audit.js';
import { principalOf } from './authenticate.js';
import type { AuthBackend } from './backend.js';
import { authErrors } from './errors.js';
import { resolveGameAccess } from './game-access.js';
import { signGameJwt } from './jwt.js';
import { filterByScope, SCOPES } from './permissions.js';
import { endSessions, issueStamp, readAccountState } from './sessions.js';
import {
  ACCESS_TOKEN_DEFAULT_SECONDS,
  ACCESS_TOKEN_MAX_SECONDS,
  issueAccessToken,
  revokeAccessToken,
} from './tokens.js';

/**
 * Writes to accounts, tokens, sessions, keys, groups and collaborators: audited under auth, each by its service in
 * the write's transaction (auth-audit.ts), so the app-wide hook leaves them alone; remembered credential checks go
 * stale.
 */
export const AUTH_WRITE = { ...writePolicy('auth', ['auth']), auditInline: true };

/** A route of one game, open to the holders of `key` at `level` at least. */
export const game = (key: string, level: 0 | 1 | 2) => ({
  auth: { permission: [key, level] as [string, 0 | 1 | 2] },
});

const JWT_MAX_SECONDS = 3600;
export const Message = Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] });
export const ApiKeyParams = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) });
const ExpiryQuery = Type.Object({
  expireInSeconds: Type.Optional(Type.String({ description: 'lifetime in seconds (a whole number)' })),
  'X-SVCAccessToken': Type.Optional(Type.String()),
});
const USER = 'ada@studio.example';
const LoginOut = Type.Object(
  {
    country: Type.String(),
    username: Type.String(),
    expiresAt: Type.Integer({ description: 'epoch milliseconds' }),
    'X-SVCAccessToken': Type.String(),
  },
  {
    examples: [
      {
        country: 'FR',
        username: USER,
        expiresAt: 1795435200000,
        'X-SVCAccessToken': 'q3Jm0bE8xW1yZ4n7cK2pV6tR9uA5sD0fG3hJ8kL1mN4',
      },
    ],
  },
);
const TokenOwnerOut = Type.Object(
  {
    username: Type.String(),
    country: Type.String(),
    isAdmin: Type.Boolean(),
    expiresAt: Type.Integer({ description: 'epoch milliseconds' }),
  },
  { examples: [{ username: USER, country: 'FR', isAdmin: false, expiresAt: 1795435200000 }] },
);
const JwtOut = Type.Object(
  {
    username: Type.String(),
    expiresAt: Type.Integer({ description: 'epoch milliseconds' }),
    'X-SVC-JWT': Type.String(),
  },
  {
    examples: [
      {
        username: USER,
        expiresAt: 1795435200000,
        'X-SVC-JWT': 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl',
      },
    ],
  },
);
const JwksOut = Type.Object(
  { keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) },
  {
    examples: [
      {
        keys: [
          {
            kty: 'OKP',
            crv: 'Ed25519',
            x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
            kid: '2026-11-22-9c1f0a2b3d4e',
            alg: 'EdDSA',
            use: 'sig',
          },
        ],
      },
    ],
  },
);

function parseExpiry(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw authErrors.badExpiry(max);
  const n = Number(raw);
  if (n < 1 || n > max) throw authErrors.badExpiry(max);
  return n;
}

export function registerSession(app: App, ctx: Context, backend: AuthBackend): void {
  const { pool } = ctx.store;
  app.get(
    '/restv2/auth/user',
    {
      config: { auth: { credentials: ['basic'], anyUser: true } },
      schema: {
        tags: ['auth'],
        operationId: 'login',
        summary: 'Log in: an access token',
        querystring: ExpiryQuery,
        response: { 200: LoginOut },
      },
    },
    async (request) => {
      const who = principalOf(request);
      const seconds = parseExpiry(
        request.query.expireInSeconds,
        ACCESS_TOKEN_DEFAULT_SECONDS,
        ACCESS_TOKEN_MAX_SECONDS,
      );
      const account = await getAccount(pool, who.username);
      const { token, expiresAt } = await issueAccessToken(pool, who.username, ctx.clock(), seconds);
      return { country: account.country, username: account.username, expiresAt, 'X-SVCAccessToken': token };
    },
  );
  app.delete(
    '/restv2/auth/user',
    {
      config: { auth: { credentials: ['token'], anyUser: true }, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'logout',
        summary: 'Log out: revoke this access token',
        response: { 200: Message },
      },
    },
    async (request) => {
      await revokeAccessToken(
        pool,
        principalOf(request).accessToken as string,
        authAudit(request, ctx.clock),
      );
      return { message: 'SUCCESS' };
    },
  );
  app.get(
    '/restv2/auth/user/token',
    {
      // A split config server checking its caller's token: the caller's request has been counted already.
      config: { auth: { credentials: ['token'], anyUser: true }, rateClass: 'none' },
      schema: {
        tags: ['auth'],
        operationId: 'checkAccessToken',
        summary: 'Check an access token (used by split config servers)',
        response: { 200: TokenOwnerOut },
      },
    },
    async (request) => {
      const who = principalOf(request);
      return backend.verifyToken(who.accessToken as string);
    },
  );
  app.put(
    '/restv2/auth/user/password',
    {
      config: { auth: { credentials: ['basic', 'token'], anyUser: true }, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'changePassword',
        summary: 'Change my password (ends my other sessions)',
        body: Type.Object(
          { oldPassword: Type.Optional(Type.String()), password: Type.String({ maxLength: 1024 }) },
          {
            additionalProperties: false,
            examples: [{ oldPassword: 'correct horse', password: 'battery staple 2' }],
          },
        ),
        response: { 200: Message },
      },
    },
    async (request) => {
      const who = principalOf(request);
      // With a token the current password must be given again, counted like a Basic login (a stolen token must
      // not become a way to guess the password); Basic has just proved it.
      if (who.kind === 'token')
        await backend.verifyCurrentPassword(who.username, request.body.oldPassword ?? '', request.ip);
      const audit = authAudit(request, ctx.clock);
      await changeOwnPassword(pool, who.username, request.body.password, who.accessToken, ctx.clock(), audit);
      return { message: 'SUCCESS' };
    },
  );
  app.delete(
    '/restv2/auth/user/sessions',
    {
      config: { auth: { credentials: ['basic', 'token'], anyUser: true }, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'endSessions',
        summary: 'Log out everywhere: end every access token and JWT of my account, this one included',
        response: { 200: Message },
      },
    },
    async (request) => {
      await endSessions(pool, principalOf(request).username, ctx.clock(), authAudit(request, ctx.clock));
      return { message: 'SUCCESS' };
    },
  );
  app.get(
    '/restv2/auth/game/:apiKey/jwt',
    {
      config: { auth: { credentials: ['basic', 'token'], anyUser: true } },
      schema: {
        tags: ['auth'],
        operationId: 'getJwt',
        summary: 'A JWT for this game',
        params: ApiKeyParams,
        querystring: ExpiryQuery,
        response: { 200: JwtOut },
      },
    },
    async (request) =>
      issueJwt(
        ctx,
        backend,
        request.params.apiKey,
        principalOf(request).username,
        request.query.expireInSeconds,
        undefined,
      ),
  );
  app.get(
    '/restv2/auth/game/:apiKey/jwt/:filter',
    {
      config: { auth: { credentials: ['basic', 'token'], anyUser: true } },
      schema: {
        tags: ['auth'],
        operationId: 'getScopedJwt',
        summary: 'A JWT limited to one scope (nosql, config, admin)',
        params: Type.Object({
          apiKey: Type.String({ minLength: 1, maxLength: 128 }),
          filter: Type.String({ maxLength: 64 }),
        }),
        querystring: ExpiryQuery,
        response: { 200: JwtOut },
      },
    },
    async (request) =>
      issueJwt(
        ctx,
        backend,
        request.params.apiKey,
        principalOf(request).username,
        request.query.expireInSeconds,
        request.params.filter,
      ),
  );
  app.get(
    '/restv2/auth/.well-known/jwks.json',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getJwks',
        summary: 'Public keys that verify JWTs',
        response: { 200: JwksOut },
      },
    },
    async () => (backend.keys as NonNullable<AuthBackend['keys']>).jwks(),
  );
  app.post(
    '/restv2/auth/keys/rotate',
    {
      config: { auth: { admin: true, credentials: ['basic', 'token'] }, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'rotateSigningKey',
        summary: 'Rotate the JWT signing key',
        ...NO_BODY,
        response: {
          200: Type.Object({ kid: Type.String() }, { examples: [{ kid: '2026-11-22-9c1f0a2b3d4e' }] }),
        },
      },
    },
    async (request) => ({
      kid: await (backend.keys as NonNullable<AuthBackend['keys']>).rotate(authAudit(request, ctx.clock)),
    }),
  );
}

async function issueJwt(
  ctx: Context,
  backend: AuthBackend,
  apiKey: string,
  username: string,
  expiry: string | undefined,
  filter: string | undefined,
) {
  if (filter !== undefined && !(filter in SCOPES))
    throw authErrors.unknownFilter(filter, Object.keys(SCOPES));
  const seconds = parseExpiry(expiry, JWT_MAX_SECONDS, JWT_MAX_SECONDS);
  const access = await resolveGameAccess(ctx.store.pool, apiKey, username);
  const permissions = filter ? filterByScope(access.permissions, filter) : access.permissions;
  // Read afresh, not remembered: the stamp must be past an end of sessions another process has just made.
  const account = await readAccountState(ctx.store.pool, username);
  const now = ctx.clock();
  const { token, expiresAt } = await signGameJwt(
    backend.keys as NonNullable<AuthBackend['keys']>,
    {
      sub: username,
      username,
      apiKey,
      permissions: { [apiKey]: permissions },
      groups: access.groups,
      scope: filter ?? 'all',
      owner: access.owner,
    },
    now,
    seconds,
    issueStamp(now, account),
  );
  return { username, expiresAt, 'X-SVC-JWT': token };
}
