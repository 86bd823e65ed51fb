// On a cluster's nosql server, a request for a game that lives on another cluster answers 404 naming that cluster
// (its games row is replicated for this). The game's cluster is remembered until the applier says it changed.
import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import { nosqlErrors } from '../nosql/errors.js';
import type { App } from '../route/app.js';
import { selectGameCluster } from '../store/replica.js';

const MAX_REMEMBERED = 10_000;

export function registerPlacementCheck(app: App, ctx: Context): void {
  const here = ctx.settings.replica.cluster;
  if (here === undefined) return;
  // null: no such game here (the routes answer their own 404).
  const clusters = new Map<string, string | null>();
  ctx.gameChanges?.subscribe((games) => {
    if (games === '*') clusters.clear();
    else for (const game of games) clusters.delete(game);
  });
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const apiKey = params.apiKey ?? params.gameApiKey;
    if (apiKey === undefined) return;
    let cluster = clusters.get(apiKey);
    if (cluster === undefined) {
      cluster = (await selectGameCluster(ctx.store.pool, apiKey)) ?? null;
      if (clusters.size >= MAX_REMEMBERED) clusters.clear();
      clusters.set(apiKey, cluster);
    }
    if (cluster !== null && cluster !== here) throw nosqlErrors.gameOnOtherCluster(apiKey, cluster);
  });
}
