// Routes of snapshots, for game snapshots (/admin/snapshots) and screen snapshots (/manage/snapshots) alike.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type AuthRequirement, principalOf } from '../auth/authenticate.js';
import { authErrors } from '../auth/errors.js';
import { resolveGameAccess } from '../auth/game-access.js';
import { type Level, levelOf } from '../auth/permissions.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf, NO_BODY } from '../route/openapi.js';
import { writePolicy } from '../route/policy.js';
import type { WriteMeta } from './manage.js';
import { describeMeta } from './meta-collections.js';
import { type PublishAdapter, publishSnapshot, unpublishSnapshot } from './publish.js';
import { type CopyInclude, copySnapshotToGame, copySnapshotToNewGame } from './snapshot-copy.js';
import {
  createSnapshot,
  deleteSnapshot,
  listSnapshots,
  liveSnapshotIdOf,
  readSnapshot,
  revertToSnapshot,
  SNAPSHOT_PAGE_SIZE,
  type SnapshotKind,
  toSummary,
} from './snapshots.js';

export interface SnapshotRoutesOptions {
  kind: SnapshotKind;
  /** /restv2/game/:apiKey/admin/snapshots or /restv2/game/:apiKey/manage/snapshots */
  base: string;
  adapter: PublishAdapter;
  /** Read (1) and write (2) of snapshots; publishing takes admin.publish 2 for both kinds. */
  permission: string;
  /** Copy into a brand-new game (game snapshots only). */
  copyToNewGame: boolean;
}

const SNAPSHOT = {
  id: '5f0c2a9e1b7d4c3a8e6f1d20',
  created: '2026-11-22T12:00:00.000Z',
  createdBy: 'ada@studio.example',
  description: 'Season 3 balance',
  published: false,
};
const SnapshotOut = Type.Object(
  {
    id: Type.String(),
    created: Type.String(),
    createdBy: Type.String(),
    description: Type.String(),
    published: Type.Boolean(),
  },
  { examples: [SNAPSHOT] },
);
const SnapshotFull = Type.Object(
  {
    ...SnapshotOut.properties,
    config: Type.Optional(Type.Unknown()),
    meta: Type.Optional(
      Type.Array(
        Type.Object({
          collection: Type.String(),
          documents: Type.Integer(),
          indexes: Type.Array(Type.String()),
        }),
      ),
    ),
  },
  { examples: [SNAPSHOT] },
);
const ApiKey = Type.String({ minLength: 1, maxLength: 128 });
const Id = Type.String({ minLength: 1, maxLength: 64 });
const Params = Type.Object({ apiKey: ApiKey });
const IdParams = Type.Object({ apiKey: ApiKey, id: Id });
const PageQuery = Type.Object({
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: SNAPSHOT_PAGE_SIZE }),
});
const CopyQuery = Type.Object({
  includeConfig: Type.Boolean({ default: true }),
  includeMeta: Type.Boolean({ default: true }),
  includeCollaborators: Type.Boolean({ default: false }),
});
const CopyOut = Type.Object(
  { targetGameApiKey: Type.String(), autosave: Type.Optional(SnapshotOut) },
  {
    examples: [
      {
        targetGameApiKey: 'p2Lx8Vq4Rz7Nc1Md5Kt9',
        autosave: { ...SNAPSHOT, description: 'AUTOSAVE - Pre Copy' },
      },
    ],
  },
);
const Published = Type.Object(
  { ...SnapshotOut.properties },
  { examples: [{ ...SNAPSHOT, published: true }] },
);
const Reverted = Type.Object(
  { message: Type.String(), autosave: SnapshotOut },
  { examples: [{ message: 'SUCCESS', autosave: { ...SNAPSHOT, description: 'AUTOSAVE - Pre Revert' } }] },
);

function writeMeta(request: FastifyRequest, clock: () => number): WriteMeta {
  const who = principalOf(request);
  return { actor: who.username, credential: who.kind, requestId: request.id, at: clock() };
}

/** copy/to/{apiKey} writes to a second game: the caller needs the same permission there. */
async function authorizeTarget(ctx: Context, request: FastifyRequest, target: string, key: string) {
  const who = principalOf(request);
  const access = await resolveGameAccess(ctx.store.pool, target, who.username);
  if (levelOf(access.permissions, key) < 2) throw authErrors.forbidden(key, 2);
}

export function registerSnapshotRoutes(app: App, ctx: Context, o: SnapshotRoutesOptions): void {
  const { pool } = ctx.store;
  const { kind, base, adapter } = o;
  const tags = [kind === 'game' ? 'admin' : 'manage'];
  const what = kind === 'game' ? 'game snapshot' : 'screen snapshot';
  /** The operationIds' noun: listSnapshots, listScreenSnapshots. */
  const noun = kind === 'game' ? 'Snapshot' : 'ScreenSnapshot';
  const need = (key: string, level: Level) => ({ auth: { permission: [key, level] as [string, Level] } });
  const read = need(o.permission, 1);
  // Game snapshots can create a game's default groups (copy to a new game): credential checks go stale.
  const policy = kind === 'game' ? writePolicy('admin', ['auth']) : writePolicy('manage');
  const write = { ...need(o.permission, 2), ...policy, auditInline: true };
  const publish = { ...need('admin.publish', 2), ...policy, auditInline: true };
  const meta = (r: FastifyRequest) => writeMeta(r, ctx.clock);

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        operationId: `list${noun}s`,
        summary: `List ${what}s, newest first (first page)`,
        params: Params,
        querystring: PageQuery,
        response: { 200: listOf(SnapshotOut) },
      },
    },
    async (request) => listSnapshots(pool, request.params.apiKey, kind, 1, request.query.pageSize),
  );
  app.get(
    `${base}/page/:n`,
    {
      config: read,
      schema: {
        tags,
        operationId: `list${noun}sPage`,
        summary: `One page of ${what}s (pages start at 1)`,
        params: Type.Object({ apiKey: ApiKey, n: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }),
        querystring: PageQuery,
        response: { 200: listOf(SnapshotOut) },
      },
    },
    async (request) =>
      listSnapshots(pool, request.params.apiKey, kind, request.params.n, request.query.pageSize),
  );
  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        operationId: `create${noun}`,
        summary: `Save the working copy as a ${what}`,
        params: Params,
        body: Type.Object(
          { description: Type.Optional(Type.String({ maxLength: 1000 })) },
          { additionalProperties: false, examples: [{ description: 'Season 3 balance' }] },
        ),
        response: { 201: SnapshotOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createSnapshot(
            pool,
            adapter,
            request.params.apiKey,
            kind,
            request.body.description ?? '',
            meta(request),
          ),
        ),
  );
  app.get(
    `${base}/liveSnapshotId`,
    {
      config: read,
      schema: {
        tags,
        operationId: `getLive${noun}Id`,
        summary: `The ${what} the Live stage runs (null before the first publish)`,
        params: Params,
        response: {
          200: Type.Object(
            { liveSnapshotId: Type.Union([Type.String(), Type.Null()]) },
            { examples: [{ liveSnapshotId: SNAPSHOT.id }] },
          ),
        },
      },
    },
    async (request) => ({ liveSnapshotId: await liveSnapshotIdOf(pool, request.params.apiKey, kind) }),
  );
  app.get(
    `${base}/:id`,
    {
      config: read,
      schema: {
        tags,
        operationId: `get${noun}`,
        summary: `Read a ${what}; ?full=true adds its content`,
        params: IdParams,
        querystring: Type.Object({ full: Type.Boolean({ default: false }) }),
        response: { 200: SnapshotFull },
      },
    },
    async (request) => {
      const row = await readSnapshot(pool, request.params.apiKey, kind, request.params.id);
      const summary = toSummary(row);
      if (!request.query.full) return summary;
      return kind === 'game'
        ? { ...summary, config: row.config, meta: describeMeta(row.meta) }
        : { ...summary, config: row.config };
    },
  );
  app.delete(
    `${base}/:id`,
    {
      config: write,
      schema: {
        tags,
        operationId: `delete${noun}`,
        summary: `Delete a ${what} (not the one Live runs)`,
        params: IdParams,
        response: { 200: Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] }) },
      },
    },
    async (request) => {
      await deleteSnapshot(pool, request.params.apiKey, kind, request.params.id, meta(request));
      return { message: 'SUCCESS' };
    },
  );
  registerPublishing(app, ctx, o, { publish, write, meta, tags, what, noun });
  registerCopy(app, ctx, o, { write, meta, tags, what, noun });
}

interface RouteConfig {
  auth: AuthRequirement;
  auditInline: boolean;
}

interface Shared {
  write?: RouteConfig;
  publish?: RouteConfig;
  meta: (r: FastifyRequest) => WriteMeta;
  tags: string[];
  what: string;
  noun: string;
}

function registerPublishing(app: App, ctx: Context, o: SnapshotRoutesOptions, s: Shared): void {
  const { pool } = ctx.store;
  const { kind, base, adapter } = o;
  for (const verb of ['publish', 'unpublish'] as const) {
    app.post(
      `${base}/:id/${verb}`,
      {
        config: s.publish,
        schema: {
          tags: s.tags,
          operationId: `${verb}${s.noun}`,
          ...NO_BODY,
          summary:
            verb === 'publish'
              ? `Make the ${s.what} the one the Live stage runs`
              : `Take the ${s.what} off Live; Live falls back to the previous published one, or to nothing`,
          params: IdParams,
          response: { 200: Published },
        },
      },
      async (request) =>
        (verb === 'publish' ? publishSnapshot : unpublishSnapshot)(
          pool,
          adapter,
          request.params.apiKey,
          kind,
          request.params.id,
          s.meta(request),
        ),
    );
  }
  app.post(
    `${base}/revert/to/:id`,
    {
      config: s.write,
      schema: {
        tags: s.tags,
        operationId: `revertTo${s.noun}`,
        ...NO_BODY,
        summary: `Replace the working copy with the ${s.what}, after saving it as "AUTOSAVE - Pre Revert"`,
        params: IdParams,
        response: { 200: Reverted },
      },
    },
    async (request) => {
      const { autosave } = await revertToSnapshot(
        pool,
        adapter,
        request.params.apiKey,
        kind,
        request.params.id,
        s.meta(request),
      );
      return { message: 'SUCCESS', autosave };
    },
  );
}

function includeOf(q: { includeConfig: boolean; includeMeta: boolean; includeCollaborators: boolean }) {
  return {
    config: q.includeConfig,
    meta: q.includeMeta,
    collaborators: q.includeCollaborators,
  } as CopyInclude;
}

function registerCopy(app: App, ctx: Context, o: SnapshotRoutesOptions, s: Shared): void {
  const { pool } = ctx.store;
  const { kind, base, adapter } = o;
  if (o.copyToNewGame) {
    app.post(
      `${base}/:id/copy`,
      {
        config: s.write,
        schema: {
          tags: s.tags,
          operationId: `copy${s.noun}ToNewGame`,
          ...NO_BODY,
          summary: `Copy the ${s.what} into a new game owned by the caller`,
          params: IdParams,
          querystring: Type.Object({
            ...CopyQuery.properties,
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          }),
          response: { 200: CopyOut },
        },
      },
      async (request) =>
        copySnapshotToNewGame(
          pool,
          adapter,
          { apiKey: request.params.apiKey, kind, id: request.params.id },
          { owner: principalOf(request).username, name: request.query.name },
          includeOf(request.query),
          s.meta(request),
        ),
    );
  }
  app.post(
    `${base}/:id/copy/to/:targetApiKey`,
    {
      // A JWT speaks for one game only; writing to a second one takes an account credential.
      config: { ...s.write, auth: { ...s.write?.auth, credentials: ['basic', 'token'] } },
      schema: {
        tags: s.tags,
        operationId: `copy${s.noun}ToGame`,
        ...NO_BODY,
        summary: `Copy the ${s.what} over another game, after saving its working copy as "AUTOSAVE - Pre Copy"`,
        params: Type.Object({ apiKey: ApiKey, id: Id, targetApiKey: ApiKey }),
        querystring: CopyQuery,
        response: { 200: CopyOut },
      },
    },
    async (request) => {
      const { apiKey, id, targetApiKey } = request.params;
      if (targetApiKey !== apiKey) await authorizeTarget(ctx, request, targetApiKey, o.permission);
      return copySnapshotToGame(
        pool,
        adapter,
        { apiKey, kind, id },
        targetApiKey,
        includeOf(request.query),
        s.meta(request),
      );
    },
  );
}
