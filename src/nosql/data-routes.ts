// Routes of the key-value data service for one stage: {stageBaseUrl}/restv2/game/{gameApiKey}/data/**.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AuthRequirement } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import { fromWire, isDoc, toWire } from '../query/values.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import { type DataCore, makeDataCore } from './data-core.js';
import { dataErrors } from './data-errors.js';
import { parseDataQuery } from './data-query.js';
import { checkIndexedFields, checkItemId, type DataItem, type TypeScope } from './data-service.js';
import type { DataType } from './data-types.js';
import { NOSQL_BODY_LIMIT } from './route-support.js';
import type { Stage } from './scope.js';
import { checkNesting } from './wire.js';

// Counted per game a second (PLAYBASE_LIMIT_DATA_PER_SECOND), not against the management API's limits.
const READ: { auth: AuthRequirement; rateClass: 'data' } = {
  auth: { credentials: ['jwt'], permission: ['nosql.data', 1] },
  rateClass: 'data',
};
const WRITE: { auth: AuthRequirement; rateClass: 'data' } = {
  auth: { credentials: ['jwt'], permission: ['nosql.data', 2] },
  rateClass: 'data',
};
const tags = ['data'];
/** Ten years: a longer TTL is a mistake, not a wish. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

const Game = Type.String({ minLength: 1, maxLength: 128 });
const TypeName = Type.String({ minLength: 1, maxLength: 64 });
const GameParams = Type.Object({ gameApiKey: Game });
const TypeParams = Type.Object({ gameApiKey: Game, type: TypeName });
const ItemParams = Type.Object({ gameApiKey: Game, type: TypeName, itemId: Type.String() });
const Field = Type.Object({ name: Type.String(), type: Type.String() });
const TypeOut = Type.Object({ shortCode: Type.String(), name: Type.String(), fields: Type.Array(Field) });
const TYPE_EXAMPLE = {
  shortCode: 'inventory',
  name: 'Inventory',
  fields: [{ name: 'owner', type: 'string' }],
};
const ITEM_EXAMPLE = {
  type: 'inventory',
  id: 'ada-sword',
  data: { owner: 'ada', item: 'sword', level: 3 },
  version: 2,
  expiresAt: null,
};
const ItemOut = Type.Object(
  {
    type: Type.String(),
    id: Type.String(),
    data: Type.Unknown({ description: 'the item (extended JSON, relaxed)' }),
    version: Type.Integer(),
    expiresAt: Type.Union([Type.String({ description: 'ISO 8601' }), Type.Null()]),
  },
  { examples: [ITEM_EXAMPLE] },
);
const Condition = Type.Object(
  {
    condition: Type.Union([Type.Literal('AND'), Type.Literal('OR'), Type.Literal('NOT')]),
    rules: Type.Array(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'a rule {field, operator, value} (EQ NE LT GT LE GE IN STARTSWITH), or a nested condition',
      }),
    ),
  },
  { additionalProperties: false },
);
// Checked by parseDataQuery (DATA_BAD_QUERY, DATA_FIELD_NOT_INDEXED): described here, not validated by Fastify.
const QueryBody = Type.Object(
  {
    query: Type.Optional(Condition),
    sort: Type.Optional(Type.String({ description: 'one declared field' })),
    asc: Type.Optional(Type.Boolean({ default: true })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        query: { condition: 'AND', rules: [{ field: 'owner', operator: 'EQ', value: 'ada' }] },
        sort: 'owner',
        limit: 50,
      },
    ],
  },
);
const PutBody = Type.Object(
  {
    data: Type.Unknown({ description: 'a JSON object (extended JSON accepted)' }),
    ttl: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: MAX_TTL_SECONDS }), Type.Null()], {
        description: 'seconds until the item is gone; absent, null or 0: never',
      }),
    ),
    versionCheck: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'write only if the stored version is this; 0: only if absent',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ data: ITEM_EXAMPLE.data, ttl: 86400, versionCheck: 1 }] },
);
const VersionQuery = Type.Object({ versionCheck: Type.Optional(Type.Integer({ minimum: 0 })) });
const Deleted = Type.Object(
  { message: Type.String(), deletedCount: Type.Integer() },
  { examples: [{ message: 'SUCCESS', deletedCount: 1 }] },
);
/** Each stage has its own copy of these routes: its operationIds start with the stage (previewGetItem). */
const opId = (stage: Stage, name: string) => `${stage}${name}`;

function wireItem(item: DataItem) {
  return {
    type: item.type,
    id: item.id,
    data: toWire(item.data),
    version: item.version,
    expiresAt: item.expiresAt === null ? null : new Date(item.expiresAt).toISOString(),
  };
}

function readData(raw: unknown): DataItem['data'] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw dataErrors.badBody('data must be a JSON object');
  checkNesting(raw);
  const data = fromWire(raw);
  if (!isDoc(data)) throw dataErrors.badBody('data must be a JSON object');
  return data;
}

interface DataEnv {
  ctx: Context;
  stage: Stage;
  /** The operations, each with its database errors translated. */
  core: DataCore;
  /** The request's declared type and its scope; 404 before anything else when the type is not declared. */
  typeOf(request: FastifyRequest): Promise<{ scope: TypeScope; type: DataType }>;
}

const BASE = '/restv2/game/:gameApiKey/data';
const itemId = (request: FastifyRequest) => checkItemId((request.params as { itemId: string }).itemId);

export function registerDataRoutes(app: App, ctx: Context, stage: Stage): void {
  const core = makeDataCore(ctx.store.pool, ctx.settings.statementTimeoutMs, ctx.clock);
  const env: DataEnv = {
    ctx,
    stage,
    core,
    typeOf(request) {
      const p = request.params as { gameApiKey: string; type: string };
      return core.requireType({ game: p.gameApiKey, stage }, p.type);
    },
  };
  registerTypeRoutes(app, env);
  registerItemRoutes(app, env);
}

/** The type-wide calls: list the declared types, delete all items of one, query one. */
function registerTypeRoutes(app: App, env: DataEnv): void {
  const { stage, core, typeOf } = env;
  const base = BASE;
  app.get(
    `${base}/datatypes`,
    {
      config: READ,
      schema: {
        tags,
        operationId: opId(stage, 'ListDataTypes'),
        summary: 'List the declared data types',
        params: GameParams,
        response: { 200: Type.Array(TypeOut, { examples: [[TYPE_EXAMPLE]] }) },
      },
    },
    async (request) => {
      const types = await core.listTypes({ game: request.params.gameApiKey, stage });
      return types.map((t) => ({ shortCode: t.shortCode, name: t.name, fields: t.fields }));
    },
  );

  app.delete(
    `${base}/:type`,
    {
      config: WRITE,
      schema: {
        tags,
        operationId: opId(stage, 'DeleteAllItems'),
        summary: 'Delete every item of a data type',
        params: TypeParams,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      const { scope } = await typeOf(request);
      return { message: 'SUCCESS', deletedCount: await core.deleteAll(scope) };
    },
  );

  app.post(
    `${base}/:type/query`,
    {
      config: { ...READ, ...documented({ body: QueryBody }) },
      bodyLimit: NOSQL_BODY_LIMIT,
      schema: {
        tags,
        operationId: opId(stage, 'QueryItems'),
        summary: 'Query items on indexed fields',
        params: TypeParams,
        body: Type.Unknown(),
        response: {
          200: Type.Object(
            { items: Type.Array(ItemOut), nextOffset: Type.Union([Type.Integer(), Type.Null()]) },
            { examples: [{ items: [ITEM_EXAMPLE], nextOffset: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { scope, type } = await typeOf(request);
      const query = parseDataQuery(request.body, type.shortCode, type.fields);
      const page = await core.query(scope, query);
      return { items: page.items.map(wireItem), nextOffset: page.nextOffset };
    },
  );
}

/** The calls on one item: get, put, delete. */
function registerItemRoutes(app: App, env: DataEnv): void {
  const { stage, core, typeOf } = env;
  const base = BASE;
  app.get(
    `${base}/:type/:itemId`,
    {
      config: READ,
      schema: {
        tags,
        operationId: opId(stage, 'GetItem'),
        summary: 'Get an item',
        params: ItemParams,
        response: { 200: ItemOut },
      },
    },
    async (request) => {
      const { scope } = await typeOf(request);
      return wireItem(await core.get(scope, itemId(request)));
    },
  );

  app.put(
    `${base}/:type/:itemId`,
    {
      config: WRITE,
      bodyLimit: NOSQL_BODY_LIMIT,
      schema: {
        tags,
        operationId: opId(stage, 'PutItem'),
        summary: 'Put an item (replaces its data and TTL)',
        params: ItemParams,
        body: PutBody,
        response: { 200: ItemOut },
      },
    },
    async (request) => {
      const { scope, type } = await typeOf(request);
      const id = itemId(request);
      const data = readData(request.body.data);
      checkIndexedFields(data, type.fields);
      const input = {
        data,
        ttlSeconds: request.body.ttl ?? undefined,
        versionCheck: request.body.versionCheck,
      };
      return wireItem(await core.put(scope, id, input));
    },
  );

  app.delete(
    `${base}/:type/:itemId`,
    {
      config: WRITE,
      schema: {
        tags,
        operationId: opId(stage, 'DeleteItem'),
        summary: 'Delete an item',
        params: ItemParams,
        querystring: VersionQuery,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      const { scope } = await typeOf(request);
      const id = itemId(request);
      await core.delete(scope, id, request.query.versionCheck);
      return { message: 'SUCCESS', deletedCount: 1 };
    },
  );
}
