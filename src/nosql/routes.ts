// The runtime data server's HTTP surface for one stage, under {stageBaseUrl}/restv2/game/{gameApiKey}/...
//
// Registered once per stage, under the /live and /preview prefixes (the stage base URLs of endpoint
// discovery). Each area registers its own file here: collections, documents, indexes; the exports and the
// data service (/mongo/export, /data/**) are to be added next to them.
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { registerCollectionRoutes } from './collection-routes.js';
import { type ConfiguredCollections, configuredCollections } from './collections.js';
import { registerDocumentRoutes } from './document-routes.js';
import { registerIndexRoutes } from './index-routes.js';
import { makeEnv } from './route-support.js';
import type { Stage } from './scope.js';

export interface NosqlRouteOptions {
  /** Where leaderboard and running-total collections come from (tests give their own). */
  configured?: ConfiguredCollections;
}

export function registerNosqlRoutes(
  app: App,
  ctx: Context,
  stage: Stage,
  options: NosqlRouteOptions = {},
): void {
  const env = makeEnv(ctx, stage, options.configured ?? configuredCollections);
  registerCollectionRoutes(app, env);
  registerDocumentRoutes(app, env);
  registerIndexRoutes(app, env);
}
