// The nosql role's data service, exports and imports: routes for both stages, and the background purges, in one registrar.
import type { Context } from '../context.js';
import { startPeriodic } from '../periodic.js';
import type { App } from '../route/app.js';
import { registerDataRoutes } from './data-routes.js';
import { purgeExpiredItems } from './data-service.js';
import { createExportJobs } from './export-jobs.js';
import { registerExportRoutes } from './export-routes.js';
import { registerImportRoutes } from './import-routes.js';
import { STAGES } from './scope.js';

/** Expired data items are gone for reads at once; their rows are deleted this often. */
const ITEM_PURGE_INTERVAL_MS = 60_000;
/** Export files live 24 hours; the folder or bucket is swept this often (and before each export). */
const EXPORT_PURGE_INTERVAL_MS = 60 * 60_000;

export async function registerDataAndExports(app: App, ctx: Context): Promise<void> {
  const jobs = createExportJobs(ctx);
  for (const stage of STAGES) {
    await app.register(
      async (scope) => {
        registerDataRoutes(scope as App, ctx, stage);
        registerExportRoutes(scope as App, jobs, stage);
        registerImportRoutes(scope as App, ctx, stage);
      },
      { prefix: `/${stage}` },
    );
  }
  const stops = [
    startPeriodic(
      'data item purge',
      ITEM_PURGE_INTERVAL_MS,
      () => purgeExpiredItems(ctx.store.pool, ctx.clock()),
      ctx.log,
    ),
    startPeriodic('export file purge', EXPORT_PURGE_INTERVAL_MS, () => jobs.purge(), ctx.log),
  ];
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
    await jobs.close();
  });
}
