// Routes on collections themselves: listing, database and collection stats, drop, meta and runtime creation.
import { Type } from 'typebox';
import type { App } from '../route/app.js';
import { documented, listOf } from '../route/openapi.js';
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
  tags,
} from './route-support.js';
import { makeScope } from './scope.js';

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
    async (request) => env.core.listCollections(gameScope(env, request)),
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
    async (request) => env.core.databaseStats(gameScope(env, request)),
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
      return env.core.collectionStats(scope);
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
      await env.core.dropCollection(scope, found);
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
        await env.core.createCollection(scope, kind);
        return { message: 'OK' };
      },
    );
  }
}
