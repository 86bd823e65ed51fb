// Player management on the nosql server: {stageBaseUrl}/restv2/game/{gameApiKey}/players[/{playerId}[/...]].
// JWT only; nosql.players 1 reads and exports, 2 writes; every write and every export is audited (players.*).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { NO_BODY } from '../route/openapi.js';
import { writePolicy } from '../route/policy.js';
import type { Stage } from '../store/scope.js';
import {
  banPlayer,
  editPlayer,
  erasePlayer,
  exportPlayer,
  findPlayers,
  getPlayer,
  resetSessions,
  unbanPlayer,
  type WriteMeta,
} from './player-admin.js';
import {
  BanBody,
  EditBody,
  EraseAnswer,
  ExportAnswer,
  PlayerOut,
  PlayerParams,
  ResetAnswer,
  SearchAnswer,
  SearchQuery,
} from './player-schemas.js';

const READ = {
  auth: { credentials: ['jwt' as const], permission: ['nosql.players', 1] as ['nosql.players', 1] },
};
const WRITE = {
  auth: { credentials: ['jwt' as const], permission: ['nosql.players', 2] as ['nosql.players', 2] },
  ...writePolicy('players'),
  auditInline: true,
};
const BODY_LIMIT = 256 * 1024;
const tags = ['players'];

export function metaOf(ctx: Context, request: FastifyRequest): WriteMeta {
  const who = principalOf(request);
  return {
    actor: who.username,
    credential: who.kind,
    requestId: request.id,
    path: request.routeOptions.url,
    at: ctx.clock(),
  };
}

export function registerPlayerRoutes(app: App, ctx: Context, stage: Stage): void {
  const { pool } = ctx.store;
  const base = '/restv2/game/:gameApiKey/players';
  const one = `${base}/:playerId`;
  const gs = (request: FastifyRequest) => ({
    game: (request.params as { gameApiKey: string }).gameApiKey,
    stage,
  });
  const id = (request: FastifyRequest) => (request.params as { playerId: string }).playerId;
  const op = (name: string) => `${stage}${name}`;

  app.get(
    base,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('SearchPlayers'),
        summary: 'Search players by user name or display name (prefix, any case), id or external id; paged',
        params: Type.Object({ gameApiKey: PlayerParams.properties.gameApiKey }),
        querystring: SearchQuery,
        response: { 200: SearchAnswer },
      },
    },
    async (request) => {
      const q = request.query;
      return findPlayers(pool, gs(request), { q: q.q, by: q.by, skip: q.skip ?? 0, limit: q.limit ?? 20 });
    },
  );

  app.get(
    one,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('GetPlayer'),
        summary:
          'One player: names, currencies, scriptData, privateData, external ids, created, last seen, ban',
        params: PlayerParams,
        response: { 200: PlayerOut },
      },
    },
    async (request) => getPlayer(pool, gs(request), id(request)),
  );

  app.patch(
    one,
    {
      config: WRITE,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        operationId: op('EditPlayer'),
        summary: 'Set the display name, currency balances and/or the whole scriptData (audited)',
        params: PlayerParams,
        body: EditBody,
        response: { 200: PlayerOut },
      },
    },
    async (request) => editPlayer(pool, gs(request), id(request), request.body, metaOf(ctx, request)),
  );

  app.post(
    `${one}/ban`,
    {
      config: WRITE,
      schema: {
        tags,
        operationId: op('BanPlayer'),
        summary: 'Ban the player: its logins answer DETAILS: LOCKED, its other requests playerId: LOCKED',
        params: PlayerParams,
        body: BanBody,
        response: { 200: PlayerOut },
      },
    },
    async (request) =>
      banPlayer(pool, gs(request), id(request), request.body?.reason ?? null, metaOf(ctx, request)),
  );

  app.post(
    `${one}/unban`,
    {
      config: WRITE,
      schema: {
        tags,
        ...NO_BODY,
        operationId: op('UnbanPlayer'),
        summary: 'Lift the ban',
        params: PlayerParams,
        response: { 200: PlayerOut },
      },
    },
    async (request) => unbanPlayer(pool, gs(request), id(request), metaOf(ctx, request)),
  );

  app.post(
    `${one}/sessions/reset`,
    {
      config: WRITE,
      schema: {
        tags,
        ...NO_BODY,
        operationId: op('ResetPlayerSessions'),
        summary: "Reset the player's sessions: clears its login lockout (the runtime stores no session)",
        params: PlayerParams,
        response: { 200: ResetAnswer },
      },
    },
    async (request) => resetSessions(pool, gs(request), id(request), metaOf(ctx, request)),
  );

  app.delete(
    one,
    {
      config: WRITE,
      schema: {
        tags,
        operationId: op('ErasePlayer'),
        summary:
          'Erase the player and everything keyed by it (entries, running totals, data items, devices), in one transaction',
        params: PlayerParams,
        response: { 200: EraseAnswer },
      },
    },
    async (request) => erasePlayer(pool, gs(request), id(request), metaOf(ctx, request)),
  );

  app.get(
    `${one}/export`,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('ExportPlayer'),
        summary: 'Everything held about the player as one JSON document (audited as players.export)',
        params: PlayerParams,
        response: { 200: ExportAnswer },
      },
    },
    async (request, reply) => {
      const answer = await exportPlayer(pool, gs(request), id(request), metaOf(ctx, request));
      const file = `player-${id(request).replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
      reply.header('content-disposition', `attachment; filename="${file}"`);
      return answer;
    },
  );
}
