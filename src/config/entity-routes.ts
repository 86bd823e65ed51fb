// Routes of ~runningTotals, ~leaderboards and ~indexedTypes: list, create, read, update (PUT/PATCH), delete.
import type { TSchema } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf } from '../route/openapi.js';
import { configAudit } from './config-audit.js';
import {
  IndexedTypeInput,
  IndexedTypeOut,
  LeaderboardInput,
  LeaderboardOut,
  partialOf,
  RunningTotalInput,
  RunningTotalOut,
  ShortCode,
} from './config-types.js';
import {
  createEntity,
  deleteEntity,
  type EntityKind,
  getEntity,
  indexedTypeKind,
  leaderboardKind,
  listEntities,
  runningTotalKind,
  updateEntity,
} from './entities.js';
import { UPDATES } from './events-routes.js';
import { ApiKeyParams, CONFIG_BASE, Message, need, paramsWith, SUCCESS, TAGS as tags } from './route-kit.js';

interface EntityRoutes {
  path: string;
  /** Singular, for summaries. */
  noun: string;
  /** Singular, for operationIds (createLeaderboard, listLeaderboards). */
  name: string;
  permission: string;
  // biome-ignore lint/suspicious/noExplicitAny: one table serves three entity types
  kind: EntityKind<any, any>;
  input: TSchema;
  output: TSchema;
}

const TABLE: EntityRoutes[] = [
  {
    path: `${CONFIG_BASE}/~runningTotals`,
    noun: 'running total',
    name: 'RunningTotal',
    permission: 'configurator.runningTotals',
    kind: runningTotalKind,
    input: RunningTotalInput,
    output: RunningTotalOut,
  },
  {
    path: `${CONFIG_BASE}/~leaderboards`,
    noun: 'leaderboard',
    name: 'Leaderboard',
    permission: 'configurator.leaderboards',
    kind: leaderboardKind,
    input: LeaderboardInput,
    output: LeaderboardOut,
  },
  {
    path: `${CONFIG_BASE}/~indexedTypes`,
    noun: 'indexed type (data-service type)',
    name: 'IndexedType',
    permission: 'configurator.indexedTypes',
    kind: indexedTypeKind,
    input: IndexedTypeInput,
    output: IndexedTypeOut,
  },
];

const OneParams = paramsWith({ shortCode: ShortCode });

export function registerEntityRoutes(app: App, ctx: Context): void {
  for (const entry of TABLE) registerOne(app, ctx, entry);
}

function registerOne(app: App, ctx: Context, e: EntityRoutes): void {
  const { pool } = ctx.store;
  const read = need(e.permission, 1);
  const write = need(e.permission, 2);
  const one = `${e.path}/:shortCode`;
  app.get(
    e.path,
    {
      config: read,
      schema: {
        tags,
        operationId: `list${e.name}s`,
        summary: `List ${e.noun}s`,
        params: ApiKeyParams,
        response: { 200: listOf(e.output) },
      },
    },
    async (request) => listEntities(pool, request.params.apiKey, e.kind),
  );
  app.post(
    e.path,
    {
      config: write,
      schema: {
        tags,
        operationId: `create${e.name}`,
        summary: `Create a ${e.noun}`,
        params: ApiKeyParams,
        body: e.input,
        response: { 201: e.output },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createEntity(
            pool,
            request.params.apiKey,
            e.kind,
            request.body,
            configAudit(request, ctx.clock, 201),
          ),
        ),
  );
  app.get(
    one,
    {
      config: read,
      schema: {
        tags,
        operationId: `get${e.name}`,
        summary: `Read a ${e.noun}`,
        params: OneParams,
        response: { 200: e.output },
      },
    },
    async (request) => getEntity(pool, request.params.apiKey, e.kind, request.params.shortCode),
  );
  for (const [method, verb] of UPDATES) {
    app.route({
      method,
      url: one,
      config: write,
      schema: {
        tags,
        operationId: `${verb}${e.name}`,
        summary: `Update a ${e.noun}: only the fields sent change`,
        params: OneParams,
        body: partialOf(e.input),
        response: { 200: e.output },
      },
      handler: async (request) =>
        updateEntity(
          pool,
          request.params.apiKey,
          e.kind,
          request.params.shortCode,
          request.body as object,
          configAudit(request, ctx.clock),
        ),
    });
  }
  app.delete(
    one,
    {
      config: write,
      schema: {
        tags,
        operationId: `delete${e.name}`,
        summary: `Delete a ${e.noun}`,
        params: OneParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      await deleteEntity(
        pool,
        request.params.apiKey,
        e.kind,
        request.params.shortCode,
        configAudit(request, ctx.clock),
      );
      return SUCCESS;
    },
  );
}
