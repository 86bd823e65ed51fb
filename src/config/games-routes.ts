// Routes of the config role for games themselves: /restv2/games, /restv2/game/{apiKey}, endpoint discovery.
import { Type } from 'typebox';
import { listGamesOf } from '../auth/collaborators.js';
import type { Context } from '../context.js';
import type { App } from '../http/app.js';
import { principalOf } from '../http/authenticate.js';
import { createGame, deleteGame, endpointsOf, getGame, listDeletedGames, restoreGame } from './games.js';

const GameOut = Type.Object({
  apiKey: Type.String(),
  name: Type.String(),
  cluster: Type.String(),
  owner: Type.String(),
  created: Type.String(),
  deleted: Type.Optional(Type.String()),
});
const ApiKey = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) });
const Url = Type.Union([Type.String(), Type.Null()]);

export function registerGameRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const tags = ['games'];
  // A JWT is bound to one game: creating, listing and restoring games take Basic or an access token.
  const anyUser = { auth: { anyUser: true, credentials: ['basic', 'token'] as ('basic' | 'token')[] } };
  app.post(
    '/restv2/games',
    {
      config: anyUser,
      schema: {
        tags,
        summary: 'Create a game (the caller owns it)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            cluster: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
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
            ctx.settings.clusters,
            ctx.clock(),
          ),
        ),
  );
  app.get(
    '/restv2/games',
    { config: anyUser, schema: { tags, summary: "The caller's games" } },
    async (request) => listGamesOf(pool, principalOf(request).username),
  );
  app.get(
    '/restv2/games/deleted',
    {
      config: anyUser,
      schema: {
        tags,
        summary: "The caller's games in the recycle bin",
        response: { 200: Type.Array(GameOut) },
      },
    },
    async (request) => listDeletedGames(pool, principalOf(request).username, ctx.clock()),
  );
  app.get(
    '/restv2/game/:apiKey',
    {
      config: { auth: { permission: ['game', 1] } },
      schema: { tags, params: ApiKey, response: { 200: GameOut } },
    },
    async (request) => getGame(pool, request.params.apiKey),
  );
  app.delete(
    '/restv2/game/:apiKey',
    {
      config: { auth: { permission: ['game', 2] } },
      schema: {
        tags,
        summary: 'Move the game to the recycle bin (10 days)',
        params: ApiKey,
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async (request) => {
      await deleteGame(pool, request.params.apiKey, ctx.clock());
      return { message: 'SUCCESS' };
    },
  );
  app.post(
    '/restv2/game/:apiKey/restore',
    {
      config: anyUser,
      schema: {
        tags,
        summary: 'Bring a game back from the recycle bin (owner)',
        params: ApiKey,
        response: { 200: GameOut },
      },
    },
    async (request) => restoreGame(pool, request.params.apiKey, principalOf(request).username, ctx.clock()),
  );
  app.get(
    '/restv2/game/:gameApiKey/endpoints',
    {
      config: { auth: { permission: ['game', 1] } },
      schema: {
        tags,
        summary: 'Endpoint discovery: base URLs of the Live and Preview runtime data servers',
        params: Type.Object({ gameApiKey: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: {
          200: Type.Object({
            liveNosql: Url,
            previewNosql: Url,
            liveElasticSearch: Url,
            previewElasticSearch: Url,
          }),
        },
      },
    },
    async (request) => endpointsOf(await getGame(pool, request.params.gameApiKey), ctx.settings.clusters),
  );
}
