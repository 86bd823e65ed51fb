// Routes on a collection's indexes: list, create (a key map; ?unique=true), drop.
import { Type } from 'typebox';
import { parseIndexKeys } from '../query/indexes.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import { nosqlErrors } from './errors.js';
import { checkIndexName } from './indexes.js';
import { IndexesAnswer, IndexKeys } from './route-schemas.js';
import {
  ADMIN,
  CollectionParams,
  collectionFor,
  IndexParams,
  Message,
  NOSQL_BODY_LIMIT,
  type NosqlEnv,
  opId,
  READ,
  tags,
} from './route-support.js';
import { checkNesting } from './wire.js';

function parseUnique(raw: unknown): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw nosqlErrors.badBody('the query parameter unique must be true or false');
}

export function registerIndexRoutes(app: App, env: NosqlEnv): void {
  const collection = '/restv2/game/:gameApiKey/mongo/collection/:collectionName';

  app.get(
    `${collection}/indices`,
    {
      config: { ...READ, ...documented({ response: { 200: IndexesAnswer } }) },
      schema: {
        tags,
        operationId: opId(env, 'ListIndexes'),
        summary: "List the collection's indexes",
        params: CollectionParams,
      },
    },
    async (request) => {
      const { scope } = await collectionFor(env, request, 'INDEX');
      return env.core.listIndexes(scope);
    },
  );

  app.post(
    `${collection}/index/:indexName`,
    {
      config: { ...ADMIN, ...documented({ body: IndexKeys }) },
      bodyLimit: NOSQL_BODY_LIMIT,
      schema: {
        tags,
        operationId: opId(env, 'CreateIndex'),
        summary: 'Create an index: the body is its key map, e.g. {"level": -1, "country": 1}',
        params: IndexParams,
        querystring: Type.Object({
          unique: Type.Optional(Type.String({ description: 'true for a unique index' })),
        }),
        body: Type.Unknown({ description: 'key map: field path to 1 (ascending) or -1 (descending)' }),
        response: { 200: Message },
      },
    },
    async (request) => {
      const { scope } = await collectionFor(env, request, 'INDEX');
      const name = checkIndexName(request.params.indexName);
      checkNesting(request.body);
      const spec = { name, keys: parseIndexKeys(request.body), unique: parseUnique(request.query.unique) };
      await env.core.createIndex(scope, spec);
      return { message: 'OK' };
    },
  );

  app.delete(
    `${collection}/index/:indexName`,
    {
      config: ADMIN,
      schema: {
        tags,
        operationId: opId(env, 'DropIndex'),
        summary: 'Drop an index',
        params: IndexParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      const { scope } = await collectionFor(env, request, 'INDEX');
      await env.core.dropIndex(scope, request.params.indexName);
      return { message: 'OK' };
    },
  );
}
