// Retention of the script log: entries of every stage's `script.log` older than
// PLAYBASE_SCRIPT_LOG_RETENTION_DAYS (default 30; 0 keeps them forever) are deleted by each nosql process every
// hour (deleting the same range twice is harmless, so several processes need no coordination).
import type { Context } from '../context.js';
import { startPeriodic } from '../periodic.js';
import type { App } from '../route/app.js';
import type { Db } from '../store/scope.js';
import { deleteScriptLogBefore, scriptLogScopes } from '../store/script-log.js';
import { SCRIPT_LOG } from './run.js';

export const SCRIPT_LOG_PURGE_INTERVAL_MS = 60 * 60_000;
const BATCH = 5000;
/** Batches per stage and sweep: a huge backlog is worked off over several sweeps, never in one long one. */
const MAX_BATCHES = 20;

/** Deletes the script log entries made more than `days` days before `nowMs`; answers how many. */
export async function purgeScriptLogs(db: Db, nowMs: number, days: number): Promise<number> {
  if (days <= 0) return 0;
  const before = (nowMs - days * 86_400_000) / 1000;
  let removed = 0;
  for (const scope of await scriptLogScopes(db, SCRIPT_LOG)) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await deleteScriptLogBefore(db, { ...scope, collection: SCRIPT_LOG }, before, BATCH);
      removed += n;
      if (n < BATCH) break;
    }
  }
  return removed;
}

/** Starts the sweep with a nosql process (by the server's clock) and stops it when the server closes. */
export function registerScriptLogRetention(app: App, ctx: Context): void {
  const days = ctx.settings.scriptLogRetentionDays;
  if (days <= 0) return;
  const stop = startPeriodic(
    'script log retention',
    SCRIPT_LOG_PURGE_INTERVAL_MS,
    () => purgeScriptLogs(ctx.store.pool, ctx.clock(), days),
    ctx.log,
  );
  app.addHook('onClose', async () => stop());
}
