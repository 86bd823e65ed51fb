// Routes on collections themselves: listing, database and collection stats, drop, meta and runtime creation.
import { Type } from 'typebox';
import type { App } from '../http/app.js';
import { documented, listOf } from '../http/openapi.js';
import { createCollection, dropCollection, listCollections } from './collections.js';
import { CollectionStatsAnswer, DatabaseStatsAnswer } from './route-schemas.js';
import type { NosqlEnv } from './route-support.js';
import {
  ADMIN,
  CollectionParams,
  collectionFor,
  GameParams,
  gameScope,
  Message,
  NOSQL_BODY_LIMIT,
  opId,
  READ,
  run,
  tags,
} from './route-support.js';
import { makeScope } from './scope.js';
import { collectionStats, databaseStats } from './stats.js';

const Entry = Type.Object(
  { name: Type.String(), optionGroup: Type.String(), actions: Type.Array(Type.String()) },
  { examples: [{ name: 'player', optionGroup: 'System', actions: ['FIND', 'COUNT', 'UPDATE', 'STATS'] }] },
);

export function registerCollectionRoutes(app: App, env: NosqlEnv): void {
  const mongo = '/restv2/game/:gameApiKey/mongo';
  const collection = `${mongo}/collection/:collectionName`;

  app.get(
    `${mongo}/collections`,
    {
      config: READ,
      schema: {
        tags,
        operationId: opId(env, 'ListCollections'),
        summary: 'List collections with their group and allowed actions',
        params: GameParams,
        response: { 200: listOf(Entry) },
      },
    },
    async (request) =>
      run(env, undefined, () => listCollections(env.pool, gameScope(env, request), env.configured)),
  );

  app.get(
    `${mongo}/stats`,
    {
      config: READ,
      schema: {
        tags,
        operationId: opId(env, 'GetDatabaseStats'),
        summary: "Statistics of the game's data in this stage",
        params: GameParams,
        response: { 200: DatabaseStatsAnswer },
      },
    },
    async (request) => {
      const scope = gameScope(env, request);
      return run(env, undefined, async () => {
        const listed = await listCollections(env.pool, scope, env.configured);
        return databaseStats(env.pool, scope, listed.length);
      });
    },
  );

  app.get(
    `${collection}/stats`,
    {
      config: READ,
      schema: {
        tags,
        operationId: opId(env, 'GetCollectionStats'),
        summary: 'Statistics of one collection',
        params: CollectionParams,
        response: { 200: CollectionStatsAnswer },
      },
    },
    async (request) => {
      const { scope } = await collectionFor(env, request, 'STATS');
      return run(env, scope, () => collectionStats(env.pool, scope));
    },
  );

  app.delete(
    collection,
    {
      config: ADMIN,
      schema: {
        tags,
        operationId: opId(env, 'DropCollection'),
        summary: 'Drop a collection: its documents and indexes',
        params: CollectionParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      const { scope, collection: found } = await collectionFor(env, request, 'DROP');
      await run(env, scope, () => dropCollection(env.pool, scope, found.optionGroup, env.ddl));
      return { message: 'OK' };
    },
  );

  for (const kind of ['meta', 'runtime'] as const) {
    app.post(
      `${collection}/${kind}`,
      {
        config: { ...ADMIN, ...documented({ body: 'none' }) },
        bodyLimit: NOSQL_BODY_LIMIT,
        schema: {
          tags,
          operationId: opId(env, kind === 'meta' ? 'CreateMetaCollection' : 'CreateRuntimeCollection'),
          summary:
            kind === 'meta'
              ? 'Create the meta collection meta.{collectionName} (Preview only)'
              : 'Create the runtime collection script.{collectionName}',
          params: CollectionParams,
          body: Type.Unknown({ description: 'ignored' }),
          response: { 200: Message },
        },
      },
      async (request) => {
        const { gameApiKey, collectionName } = request.params;
        const scope = makeScope(gameApiKey, env.stage, collectionName);
        await run(env, scope, () => createCollection(env.pool, scope, collectionName, kind, env.ctx.clock()));
        return { message: 'OK' };
      },
    );
  }
}
