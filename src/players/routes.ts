// Player and leaderboard management, served by the nosql role under each stage base URL (/live, /preview):
// {stageBaseUrl}/restv2/game/{gameApiKey}/players/** and /leaderboards/** (docs/players.md).
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { STAGES } from '../store/scope.js';
import { makeLeaderboardEnv } from './leaderboard-admin.js';
import { registerLeaderboardRoutes } from './leaderboard-routes.js';
import { registerPlayerRoutes } from './player-routes.js';

export async function registerPlayerAdminRoutes(app: App, ctx: Context): Promise<void> {
  const env = makeLeaderboardEnv(ctx.store.pool, ctx.clock, ctx.metrics);
  for (const stage of STAGES) {
    await app.register(
      async (scope) => {
        registerPlayerRoutes(scope as App, ctx, stage);
        registerLeaderboardRoutes(scope as App, ctx, env, stage);
      },
      { prefix: `/${stage}` },
    );
  }
}
