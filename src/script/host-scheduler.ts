// Spark.getScheduler(): `inSeconds(module, delaySeconds, data[, key])` and `cancel(key)`. A job is a row of the
// store (src/store/script-timers.ts) written in the execution's transaction, so it is durable once the script
// commits and gone with it when the script fails; the job runner (src/runtime/script-jobs.ts) runs it when due.
import { countJobs, deleteJob, upsertJob } from '../store/script-timers.js';
import type { Session } from './session.js';

/** Bounds of the scheduler (docs/cloud-code.md, "Limits"). */
export const SCHEDULER_LIMITS = {
  /** Pending jobs of one game stage; past it inSeconds answers false. */
  pendingJobs: 10_000,
  /** Longest delay: 30 days. */
  maxDelaySeconds: 30 * 24 * 3600,
  /** A job's data, as JSON. */
  dataBytes: 64 * 1024,
  keyLength: 256,
};

const MODULE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export async function schedulerCall(
  session: Session,
  a: Record<string, unknown>,
): Promise<string | undefined> {
  const key = typeof a.key === 'string' ? a.key : null;
  if (key !== null && (key.length === 0 || key.length > SCHEDULER_LIMITS.keyLength))
    throw new Error(`a scheduler key is 1 to ${SCHEDULER_LIMITS.keyLength} characters`);
  const tx = await session.transaction();
  if (a.op === 'cancel') {
    if (key === null) throw new Error('cancel needs a key');
    await deleteJob(tx.client, session.gs, key);
    return undefined;
  }
  const module = String(a.module);
  if (!MODULE.test(module) || !session.modules.has(module))
    throw new Error(`no module ${module.slice(0, 64)}`);
  const delay = Number(a.delay);
  if (!Number.isFinite(delay) || delay < 0 || delay > SCHEDULER_LIMITS.maxDelaySeconds)
    throw new Error(`the delay is 0 to ${SCHEDULER_LIMITS.maxDelaySeconds} seconds`);
  const data = JSON.stringify(a.data ?? null);
  if (Buffer.byteLength(data) > SCHEDULER_LIMITS.dataBytes)
    throw new Error(`a scheduled job's data is at most ${SCHEDULER_LIMITS.dataBytes} bytes of JSON`);
  // A keyed job replaces its pending namesake, so it never counts against the bound twice.
  if (key === null && (await countJobs(tx.client, session.gs)) >= SCHEDULER_LIMITS.pendingJobs)
    return JSON.stringify(false);
  const now = session.env.clock();
  await upsertJob(tx.client, session.gs, {
    key,
    module,
    data,
    playerId: typeof a.playerId === 'string' ? a.playerId : null,
    dueAt: new Date(now + Math.round(delay * 1000)),
    now: new Date(now),
  });
  return JSON.stringify(true);
}
