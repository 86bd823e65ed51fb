// Routes of the config role for games themselves: /restv2/games, /restv2/game/{apiKey}, endpoint discovery.
import { Type } from 'typebox';
import { principalOf } from '../auth/authenticate.js';
import { listGamesOf } from '../auth/collaborators.js';
import { MyGames } from '../auth/route-schemas.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { NO_BODY } from '../route/openapi.js';
import { writePolicy } from '../route/policy.js';
import { writeAudit } from './config-audit.js';
import {
  createGame,
  deleteGame,
  endpointsOf,
  getGame,
  listDeletedGames,
  renameGame,
  restoreGame,
} from './games.js';

const GAME = {
  apiKey: 'k7Qd2mXp9LwZ4rTb8nYc',
  name: 'Space Miners',
  cluster: 'local',
  owner: 'ada@studio.example',
  created: '2026-11-22T12:00:00.000Z',
};
const GameOut = Type.Object(
  {
    apiKey: Type.String(),
    name: Type.String(),
    cluster: Type.String(),
    owner: Type.String(),
    created: Type.String(),
    deleted: Type.Optional(Type.String()),
  },
  { examples: [GAME] },
);
const ApiKey = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Url = Type.Union([Type.String(), Type.Null()]);
const EndpointsOut = Type.Object(
  { liveNosql: Url, previewNosql: Url, liveElasticSearch: Url, previewElasticSearch: Url },
  {
    examples: [
      {
        liveNosql: 'https://playbase.example/live',
        previewNosql: 'https://playbase.example/preview',
        liveElasticSearch: null,
        previewElasticSearch: null,
      },
    ],
  },
);

/** Creating, renaming, deleting and restoring games: audited under game; games and their groups feed credential checks. */
const GAME_WRITE = writePolicy('game', ['auth']);

export function registerGameRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const tags = ['games'];
  // A JWT is bound to one game: creating, listing and restoring games take Basic or an access token.
  const anyUser = { auth: { anyUser: true, credentials: ['basic', 'token'] as ('basic' | 'token')[] } };
  app.post(
    '/restv2/games',
    {
      // The service records the creation with the new game's key, in its transaction.
      config: { ...anyUser, ...GAME_WRITE, auditInline: true },
      schema: {
        tags,
        operationId: 'createGame',
        summary: 'Create a game (the caller owns it)',
        body: Type.Object(
          {
            name: Name,
            cluster: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false, examples: [{ name: 'Space Miners' }] },
        ),
        response: { 201: GameOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createGame(
            pool,
            request.body,
            principalOf(request).username,
            ctx.settings,
            ctx.clock(),
            writeAudit(request, ctx.clock, 201),
          ),
        ),
  );
  app.get(
    '/restv2/games',
    {
      config: anyUser,
      schema: { tags, operationId: 'listGames', summary: "The caller's games", response: { 200: MyGames } },
    },
    async (request) => listGamesOf(pool, principalOf(request).username),
  );
  app.get(
    '/restv2/games/deleted',
    {
      config: anyUser,
      schema: {
        tags,
        operationId: 'listDeletedGames',
        summary: "The caller's games in the recycle bin",
        response: {
          200: Type.Array(GameOut, { examples: [[{ ...GAME, deleted: '2026-11-23T09:30:00.000Z' }]] }),
        },
      },
    },
    async (request) => listDeletedGames(pool, principalOf(request).username, ctx.clock()),
  );
  app.get(
    '/restv2/game/:apiKey',
    {
      config: { auth: { permission: ['game', 1] } },
      schema: {
        tags,
        operationId: 'getGame',
        summary: 'Read a game',
        params: ApiKey,
        response: { 200: GameOut },
      },
    },
    async (request) => getGame(pool, request.params.apiKey),
  );
  app.patch(
    '/restv2/game/:apiKey',
    {
      // The service records the new name in its transaction.
      config: { auth: { permission: ['game', 2] }, ...GAME_WRITE, auditInline: true },
      schema: {
        tags,
        operationId: 'renameGame',
        summary: 'Rename a game',
        params: ApiKey,
        body: Type.Object(
          { name: Name },
          { additionalProperties: false, examples: [{ name: 'Space Miners 2' }] },
        ),
        response: { 200: GameOut },
      },
    },
    async (request) =>
      renameGame(pool, request.params.apiKey, request.body.name, writeAudit(request, ctx.clock)),
  );
  app.delete(
    '/restv2/game/:apiKey',
    {
      // The service records the deletion in its transaction.
      config: { auth: { permission: ['game', 2] }, ...GAME_WRITE, auditInline: true },
      schema: {
        tags,
        operationId: 'deleteGame',
        summary: 'Move the game to the recycle bin (10 days)',
        params: ApiKey,
        response: { 200: Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] }) },
      },
    },
    async (request) => {
      await deleteGame(pool, request.params.apiKey, ctx.clock(), writeAudit(request, ctx.clock));
      return { message: 'SUCCESS' };
    },
  );
  app.post(
    '/restv2/game/:apiKey/restore',
    {
      // The service records the restore in its transaction.
      config: { ...anyUser, ...GAME_WRITE, auditInline: true },
      schema: {
        tags,
        operationId: 'restoreGame',
        summary: 'Bring a game back from the recycle bin (owner)',
        ...NO_BODY,
        params: ApiKey,
        response: { 200: GameOut },
      },
    },
    async (request) =>
      restoreGame(
        pool,
        request.params.apiKey,
        principalOf(request).username,
        ctx.clock(),
        writeAudit(request, ctx.clock),
      ),
  );
  app.get(
    '/restv2/game/:gameApiKey/endpoints',
    {
      config: { auth: { permission: ['game', 1] } },
      schema: {
        tags,
        operationId: 'getEndpoints',
        summary: 'Endpoint discovery: base URLs of the Live and Preview runtime data servers',
        params: Type.Object({ gameApiKey: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: EndpointsOut },
      },
    },
    async (request) => endpointsOf(await getGame(pool, request.params.gameApiKey), ctx.settings.clusters),
  );
}
