// The game administration registrar: snapshots, publishing, admin screens, push tests, the audit log and its hook.
import { readFileSync } from 'node:fs';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { registerAuditHook } from './audit-hook.js';
import { registerAuditRoutes } from './audit-routes.js';
import { createRemoteMeta } from './cluster-meta.js';
import { createGameAdapter } from './game-adapter.js';
import { registerManageRoutes } from './manage-routes.js';
import type { PushSettings } from './push/send-test.js';
import { registerPushRoutes } from './push-routes.js';
import { screensAdapter } from './screens-adapter.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';

// As the data server builds them: index builds may outlast the 10 s statement limit.
const INDEX_BUILD_TIMEOUT_MS = 10 * 60 * 1000;

/** The push sender's settings; the extra CA file is read once, at start, so a wrong path fails loudly then. */
function pushSettingsOf(ctx: Context): PushSettings {
  const { caFile, ...urls } = ctx.settings.push;
  return { ...urls, ca: caFile ? readFileSync(caFile, 'utf8') : undefined };
}

/** Registers every administration route of the config role, and the app-wide audit hook. */
export function registerAdminRoutes(app: App, ctx: Context): void {
  registerAuditHook(app);
  registerAuditRoutes(app, ctx);
  registerSnapshotRoutes(app, ctx, {
    kind: 'game',
    base: '/restv2/game/:apiKey/admin/snapshots',
    adapter: createGameAdapter({
      pool: ctx.store.pool,
      secretKey: ctx.settings.secretKey,
      ddl: { concurrently: ctx.store.kind === 'postgres', buildTimeoutMs: INDEX_BUILD_TIMEOUT_MS },
      log: ctx.log,
      remote: createRemoteMeta(ctx.settings.clusters, ctx.settings.replica.secret),
    }),
    permission: 'admin.snapshots',
    copyToNewGame: true,
  });
  registerManageRoutes(app, ctx);
  registerSnapshotRoutes(app, ctx, {
    kind: 'screens',
    base: '/restv2/game/:apiKey/manage/snapshots',
    adapter: screensAdapter,
    permission: 'manage',
    copyToNewGame: false,
  });
  registerPushRoutes(app, ctx, pushSettingsOf(ctx));
}
