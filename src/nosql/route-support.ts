// What the nosql route files share: the stage they serve, auth declarations, params, and the request → scope
// → collection → action check every collection route starts with.
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { Type } from 'typebox';
import type { AuthRequirement } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import type { Action, CollectionEntry, ConfiguredCollections } from './collections.js';
import { makeCore, type NosqlCore } from './core.js';
import type { DdlOptions } from './indexes.js';
import { type GameScope, makeScope, type Scope, type Stage } from './scope.js';

/** Everything a nosql route needs, fixed when the stage's routes are registered. */
export interface NosqlEnv {
  ctx: Context;
  stage: Stage;
  pool: pg.Pool;
  configured: ConfiguredCollections;
  timeoutMs: number;
  ddl: DdlOptions;
  /** The operations the routes call, each with its database errors translated. */
  core: NosqlCore;
}

export const NOSQL_BODY_LIMIT = 4 * 1024 * 1024;
const INDEX_BUILD_TIMEOUT_MS = 10 * 60 * 1000;

export function makeEnv(ctx: Context, stage: Stage, configured: ConfiguredCollections): NosqlEnv {
  const pool = ctx.store.pool;
  const timeoutMs = ctx.settings.statementTimeoutMs;
  const ddl = { concurrently: ctx.store.kind === 'postgres', buildTimeoutMs: INDEX_BUILD_TIMEOUT_MS };
  const core = makeCore({ pool, compute: ctx.compute, configured, timeoutMs, ddl, clock: ctx.clock });
  return { ctx, stage, pool, configured, timeoutMs, ddl, core };
}

/** The nosql role takes only JWTs: level 1 reads, 2 writes; collection administration needs nosql.admin 2. */
export const READ: { auth: AuthRequirement } = { auth: { credentials: ['jwt'], permission: ['nosql', 1] } };
export const WRITE: { auth: AuthRequirement } = { auth: { credentials: ['jwt'], permission: ['nosql', 2] } };
export const ADMIN: { auth: AuthRequirement } = {
  auth: { credentials: ['jwt'], permission: ['nosql.admin', 2] },
};

export const GameParams = Type.Object({ gameApiKey: Type.String({ minLength: 1, maxLength: 128 }) });
export const CollectionParams = Type.Object({
  gameApiKey: Type.String({ minLength: 1, maxLength: 128 }),
  collectionName: Type.String({ minLength: 1, maxLength: 256 }),
});
export const IndexParams = Type.Object({
  gameApiKey: Type.String({ minLength: 1, maxLength: 128 }),
  collectionName: Type.String({ minLength: 1, maxLength: 256 }),
  indexName: Type.String({ minLength: 1, maxLength: 256 }),
});
export const Message = Type.Object({ message: Type.String() }, { examples: [{ message: 'OK' }] });
export const tags = ['nosql'];

/** A nosql route's operationId: the stage first, as each stage has its own copy (previewFindDocuments). */
export function opId(env: { stage: Stage }, name: string): string {
  return `${env.stage}${name}`;
}

export function gameScope(env: NosqlEnv, request: FastifyRequest): GameScope {
  const { gameApiKey } = request.params as { gameApiKey: string };
  return { game: gameApiKey, stage: env.stage };
}

/** The request's collection, checked to exist in this stage and to allow every one of `actions`. */
export async function collectionFor(
  env: NosqlEnv,
  request: FastifyRequest,
  ...actions: Action[]
): Promise<{ scope: Scope; collection: CollectionEntry }> {
  const { gameApiKey, collectionName } = request.params as { gameApiKey: string; collectionName: string };
  const scope = makeScope(gameApiKey, env.stage, collectionName);
  const collection = await env.core.resolveCollection(scope, ...actions);
  return { scope, collection };
}
