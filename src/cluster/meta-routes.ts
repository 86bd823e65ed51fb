// GET /restv2/internal/clusters/{cluster}/games/{apiKey}/preview-meta, on a runtime cluster's nosql servers: the
// game's Preview meta collections, which a snapshot taken on the control side holds (docs/topology.md). Guarded by
// the shared PLAYBASE_CLUSTER_SECRET, never an account's credential; keep it off the public proxy.
import { Type } from 'typebox';
import { readMeta } from '../admin/meta-collections.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { clusterErrors } from './errors.js';
import { holdsSecret } from './secret.js';

const Index = Type.Object({
  collection: Type.String(),
  name: Type.String(),
  keys: Type.Array(Type.Array(Type.Union([Type.String(), Type.Integer()])), {
    description: '[path, 1 or -1] pairs, in order',
  }),
  unique: Type.Boolean(),
});

const Meta = Type.Object(
  {
    collections: Type.Array(Type.String(), { description: 'The meta collections made in Preview' }),
    documents: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'Their documents as whole stored rows, without game and stage',
    }),
    indexes: Type.Array(Index),
  },
  {
    examples: [
      {
        collections: ['meta.items'],
        documents: [{ collection: 'meta.items', id: '1', doc: { _id: '1', name: 'Sword' } }],
        indexes: [],
      },
    ],
  },
);

/** Served by a runtime cluster's nosql processes (PLAYBASE_CLUSTER); any other nosql process answers 404. */
export function registerClusterMetaRoute(app: App, ctx: Context): void {
  const { cluster: here, secret } = ctx.settings.replica;
  app.get(
    '/restv2/internal/clusters/:cluster/games/:apiKey/preview-meta',
    {
      config: { rateClass: 'none' },
      logLevel: 'warn',
      // Before the placement check (a preHandler): nothing is said of a game to a caller without the secret.
      onRequest: async (request) => {
        if (here === undefined || secret === undefined) throw clusterErrors.notAReplica();
        if (!holdsSecret(request.headers.authorization, secret)) throw clusterErrors.secretInvalid();
      },
      schema: {
        tags: ['internal'],
        operationId: 'getClusterPreviewMeta',
        summary:
          "A game's Preview meta collections as its runtime cluster holds them, for a snapshot taken on the control side (docs/topology.md); Bearer PLAYBASE_CLUSTER_SECRET",
        params: Type.Object({
          cluster: Type.String({ minLength: 1, maxLength: 128 }),
          apiKey: Type.String({ minLength: 1, maxLength: 128 }),
        }),
        response: { 200: Meta },
      },
    },
    async (request) => {
      if (request.params.cluster !== here)
        throw clusterErrors.notThisCluster(request.params.cluster, here as string);
      return readMeta(ctx.store.pool, request.params.apiKey, 'preview');
    },
  );
}
