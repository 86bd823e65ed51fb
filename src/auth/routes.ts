// Routes of the auth role: /restv2/auth/** (accounts, access tokens, JWTs, JWKS, games, groups, collaborators).
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { createAccount, getAccount, listAccounts, updateAccount } from './accounts.js';
import { authAudit } from './auth-audit.js';
import { principalOf } from './authenticate.js';
import type { AuthBackend } from './backend.js';
import { registerCollaborators } from './collaborator-routes.js';
import * as collab from './collaborators.js';
import { CATALOGUE, SCOPES } from './permissions.js';
import {
  ACCOUNT,
  AccountOut,
  CatalogueOut,
  GamePermissionsOut,
  GROUP,
  GroupBody,
  GroupOut,
  MyGames,
} from './route-schemas.js';
import { ApiKeyParams, AUTH_WRITE, game, Message, registerSession } from './session-routes.js';

// A JWT is bound to one game: the routes of the caller's account take Basic or an access token.
const anyCredential = { auth: { anyUser: true, credentials: ['basic', 'token'] as ('basic' | 'token')[] } };

export function registerAuthRoutes(backend: AuthBackend) {
  return (app: App, ctx: Context) => {
    const { pool } = ctx.store;
    registerSession(app, ctx, backend);
    registerAccounts(app, ctx);

    app.get(
      '/restv2/auth/games',
      {
        config: anyCredential,
        schema: {
          tags: ['auth'],
          operationId: 'listAuthGames',
          summary: "The caller's games (as GET /restv2/games)",
          response: { 200: MyGames },
        },
      },
      async (request) => collab.listGamesOf(pool, principalOf(request).username),
    );
    app.get(
      '/restv2/auth/permissions',
      {
        schema: {
          tags: ['auth'],
          operationId: 'getPermissionCatalogue',
          summary: 'The permission catalogue and scopes',
          response: { 200: CatalogueOut },
        },
      },
      async () => ({
        levels: { 0: 'none', 1: 'read', 2: 'read and write' },
        permissions: CATALOGUE,
        scopes: SCOPES,
      }),
    );
    registerGameAccess(app, ctx);
  };
}

function registerAccounts(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const admin = { auth: { admin: true, credentials: ['basic', 'token'] as ('basic' | 'token')[] } };
  const Username = Type.Object({ username: Type.String({ minLength: 3, maxLength: 254 }) });
  app.post(
    '/restv2/auth/users',
    {
      config: { ...admin, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'createAccount',
        summary: 'Create an account (administrator)',
        body: Type.Object(
          {
            username: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' }),
            password: Type.String({ maxLength: 1024 }),
            country: Type.String({ maxLength: 64 }),
          },
          {
            additionalProperties: false,
            examples: [{ username: 'ada@studio.example', password: 'correct horse', country: 'FR' }],
          },
        ),
        response: { 201: AccountOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await createAccount(pool, request.body, ctx.clock(), authAudit(request, ctx.clock, 201))),
  );
  app.get(
    '/restv2/auth/users',
    {
      config: admin,
      schema: {
        tags: ['auth'],
        operationId: 'listAccounts',
        summary: 'List accounts (administrator)',
        response: { 200: Type.Array(AccountOut, { examples: [[ACCOUNT]] }) },
      },
    },
    async () => listAccounts(pool),
  );
  app.get(
    '/restv2/auth/users/:username',
    {
      config: admin,
      schema: {
        tags: ['auth'],
        operationId: 'getAccount',
        summary: 'Read an account (administrator)',
        params: Username,
        response: { 200: AccountOut },
      },
    },
    async (request) => getAccount(pool, request.params.username),
  );
  app.put(
    '/restv2/auth/users/:username',
    {
      config: { ...admin, ...AUTH_WRITE },
      schema: {
        tags: ['auth'],
        operationId: 'updateAccount',
        summary: 'Disable, enable or reset the password of an account (administrator)',
        params: Username,
        body: Type.Object(
          {
            disabled: Type.Optional(Type.Boolean()),
            password: Type.Optional(Type.String({ maxLength: 1024 })),
            country: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false, examples: [{ disabled: true }] },
        ),
        response: { 200: AccountOut },
      },
    },
    async (request) =>
      updateAccount(pool, request.params.username, request.body, ctx.clock(), authAudit(request, ctx.clock)),
  );
}

function registerGameAccess(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const base = '/restv2/auth/game/:apiKey';
  const tags = ['auth'];
  app.get(
    `${base}/permissions`,
    {
      config: game('game', 0),
      schema: {
        tags,
        operationId: 'getGamePermissions',
        summary: "The caller's effective permissions",
        params: ApiKeyParams,
        response: { 200: GamePermissionsOut },
      },
    },
    async (request) => {
      const g = principalOf(request).game;
      return {
        apiKey: request.params.apiKey,
        owner: g?.owner ?? false,
        groups: g?.groups ?? [],
        permissions: g?.permissions ?? {},
      };
    },
  );
  app.get(
    `${base}/groups`,
    {
      config: game('admin.permissions', 1),
      schema: {
        tags,
        operationId: 'listGroups',
        summary: "The game's groups",
        params: ApiKeyParams,
        response: { 200: Type.Array(GroupOut, { examples: [[GROUP]] }) },
      },
    },
    async (request) => collab.listGroups(pool, request.params.apiKey),
  );
  app.post(
    `${base}/groups`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'createGroup',
        summary: 'Create a group',
        params: ApiKeyParams,
        body: GroupBody,
        response: { 201: GroupOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await collab.createGroup(
            pool,
            request.params.apiKey,
            request.body as collab.Group,
            authAudit(request, ctx.clock, 201),
          ),
        ),
  );
  const GroupParams = Type.Object({
    apiKey: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1, maxLength: 64 }),
  });
  app.get(
    `${base}/groups/:name`,
    {
      config: game('admin.permissions', 1),
      schema: {
        tags,
        operationId: 'getGroup',
        summary: 'Read a group',
        params: GroupParams,
        response: { 200: GroupOut },
      },
    },
    async (request) => collab.getGroup(pool, request.params.apiKey, request.params.name),
  );
  app.put(
    `${base}/groups/:name`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'updateGroup',
        summary: "Replace a group's permissions",
        params: GroupParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String()),
            permissions: Type.Record(Type.String(), Type.Integer()),
          },
          { examples: [{ permissions: GROUP.permissions }] },
        ),
        response: { 200: GroupOut },
      },
    },
    async (request) =>
      collab.updateGroup(
        pool,
        request.params.apiKey,
        request.params.name,
        request.body.permissions,
        authAudit(request, ctx.clock),
      ),
  );
  app.delete(
    `${base}/groups/:name`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'deleteGroup',
        summary: 'Delete a group',
        params: GroupParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      await collab.deleteGroup(
        pool,
        request.params.apiKey,
        request.params.name,
        authAudit(request, ctx.clock),
      );
      return { message: 'SUCCESS' };
    },
  );
  registerCollaborators(app, ctx);
}
