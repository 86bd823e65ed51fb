// The auth role's purge of expired access tokens. verifyAccessToken refuses a token from its expiry on, so the
// purge only keeps the stored tokens (store/access-tokens.ts) from growing with every login;
// PLAYBASE_TOKEN_PURGE_INTERVAL_MS sets its period.
// Each purge is one delete statement, so the statement trigger of migration 0009 empties every process's auth
// cache (at most 30 s of answers) once per period: a 10-minute default keeps that cost out of sight.
import type { Context } from '../context.js';
import { startPeriodic } from '../periodic.js';
import type { App } from '../route/app.js';
import { purgeExpiredTokens } from './tokens.js';

/** Starts the purge with the server (by the server's clock) and stops it when the server closes. */
export function registerTokenPurge(app: App, ctx: Context): void {
  const stop = startPeriodic(
    'access token purge',
    ctx.settings.tokenPurgeIntervalMs,
    () => purgeExpiredTokens(ctx.store.pool, ctx.clock()),
    ctx.log,
  );
  app.addHook('onClose', async () => stop());
}
