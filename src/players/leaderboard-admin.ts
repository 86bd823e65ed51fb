// Leaderboard management for the console: each leaderboard's boards (partitions) and next reset, its top entries
// and the entries around a player (the runtime's own reads, run for an administrator), deleting one entry and
// resetting a leaderboard or partition now. Writes record their audit entry in their own transaction.
import type pg from 'pg';
import { errors } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import { fromStored, toWire } from '../query/values.js';
import { boardKey, boardShortCode } from '../runtime/boards.js';
import { createConfigCache } from '../runtime/config-cache.js';
import { aroundMe, boardNamed, leaderboardData } from '../runtime/game-requests.js';
import { DEFAULT_LOCKOUT } from '../runtime/login-lockout.js';
import { periodStart } from '../runtime/periods.js';
import type { Answer, RuntimeEnv } from '../runtime/request-kit.js';
import type { LeaderboardPlan, ResetFrequency, RuntimeConfig } from '../runtime/runtime-config.js';
import { recordAudit } from '../store/audit.js';
import { withTransaction } from '../store/db.js';
import { currentBoards, deleteBoards, deleteEntryRow } from '../store/leaderboard-admin.js';
import { deleteMirrors } from '../store/player-admin.js';
import { applyBucketChanges } from '../store/rank-buckets.js';
import { lockBoardEntry } from '../store/runtime-boards.js';
import type { GameScope, Stage } from '../store/scope.js';
import { playersErrors } from './errors.js';
import type { WriteMeta } from './player-admin.js';

/** Partitions listed per leaderboard at most; `morePartitions` says when there are others. */
const MAX_PARTITIONS = 200;
const DAY_MS = 86_400_000;

export interface LeaderboardEnv {
  pool: pg.Pool;
  clock: () => number;
  runtime: (stage: Stage) => RuntimeEnv;
}

export function makeLeaderboardEnv(
  pool: pg.Pool,
  clock: () => number,
  metrics: Pick<Metrics, 'runtimeRequests' | 'leaderboardWrites'>,
): LeaderboardEnv {
  const configs = createConfigCache({ now: () => performance.now() });
  const runtime = (stage: Stage): RuntimeEnv => ({
    pool,
    stage,
    clock,
    configs,
    lockout: DEFAULT_LOCKOUT,
    metrics,
  });
  return { pool, clock, runtime };
}

/** The start of the period after the one `nowMs` falls in; null for a leaderboard that never resets. */
export function nextReset(reset: ResetFrequency, nowMs: number): number | null {
  const start = periodStart(reset, nowMs);
  switch (reset) {
    case 'DAILY':
      return start + DAY_MS;
    case 'WEEKLY':
      return start + 7 * DAY_MS;
    case 'MONTHLY': {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
    default:
      return null;
  }
}

async function configOf(env: LeaderboardEnv, gs: GameScope): Promise<RuntimeConfig | null> {
  return env.runtime(gs.stage).configs.get(env.pool, gs.game, gs.stage);
}

async function planOf(env: LeaderboardEnv, gs: GameScope, code: string) {
  const config = await configOf(env, gs);
  const named = config ? boardNamed(config, code) : undefined;
  if (!named) throw playersErrors.leaderboardNotFound(code);
  return named;
}

async function describe(env: LeaderboardEnv, gs: GameScope, lb: LeaderboardPlan, nowMs: number) {
  const start = periodStart(lb.reset, nowMs);
  const boards = await currentBoards(
    env.pool,
    gs,
    { leaderboard: lb.shortCode, periodStart: start, spec: lb.spec },
    MAX_PARTITIONS,
  );
  const next = nextReset(lb.reset, nowMs);
  return {
    shortCode: lb.shortCode,
    collection: lb.collection,
    resetFrequency: lb.reset,
    periodStart: start === 0 ? null : new Date(start).toISOString(),
    nextReset: next === null ? null : new Date(next).toISOString(),
    partitionAttributes: lb.partitions,
    fields: lb.fields.map((f) => ({ attribute: f.attribute, sort: f.sort, ranks: f.ranks })),
    boards: boards.slice(0, MAX_PARTITIONS).map((b) => ({
      shortCode: boardShortCode(lb, { code: b.partition, values: b.partValues }),
      partition: b.partition,
      partitionValues: b.partValues,
      entries: b.entries,
    })),
    morePartitions: boards.length > MAX_PARTITIONS,
  };
}

/** Every leaderboard of the stage's configuration (none in a Live stage that runs nothing). */
export async function listLeaderboards(env: LeaderboardEnv, gs: GameScope) {
  const config = await configOf(env, gs);
  const nowMs = env.clock();
  const out = [];
  for (const lb of config?.leaderboards.values() ?? []) out.push(await describe(env, gs, lb, nowMs));
  return out;
}

export async function getLeaderboard(env: LeaderboardEnv, gs: GameScope, code: string) {
  const { lb, partition } = await planOf(env, gs, code);
  if (partition) throw playersErrors.leaderboardNotFound(code);
  return describe(env, gs, lb, env.clock());
}

/** A runtime read's answer, or its request-level errors as the management API's 404 and 400. */
function checked(
  code: string,
  answer: Answer,
  playerId?: string,
): { leaderboardShortCode: string; entries: Record<string, unknown>[] } {
  const failed = (answer as { error?: Record<string, string> }).error;
  if (!failed) {
    const entries = (answer as { data: Record<string, unknown>[] }).data;
    return { leaderboardShortCode: code, entries };
  }
  if (failed.leaderboardShortCode) throw playersErrors.leaderboardNotFound(code);
  if (failed.playerId === 'UNRECOGNISED') throw playersErrors.playerNotFound(playerId ?? '');
  const details = Object.entries(failed).map(([field, why]) => ({ field, message: why }));
  throw errors.validation(`Invalid ${details[0]?.field}: ${details[0]?.message}`, details);
}

export async function topEntries(
  env: LeaderboardEnv,
  gs: GameScope,
  code: string,
  page: { offset: number; count: number },
) {
  const body = { leaderboardShortCode: code, offset: page.offset, entryCount: page.count };
  return checked(code, await leaderboardData({ env: env.runtime(gs.stage), gs, body, admin: true }));
}

export async function entriesAround(
  env: LeaderboardEnv,
  gs: GameScope,
  code: string,
  playerId: string,
  count: number,
) {
  const body = { leaderboardShortCode: code, playerId, entryCount: count };
  const answer = await aroundMe({ env: env.runtime(gs.stage), gs, body, admin: true });
  return { ...checked(code, answer, playerId), playerId };
}

function audit(
  client: pg.PoolClient,
  gs: GameScope,
  meta: WriteMeta,
  action: string,
  target: string,
  after: unknown,
) {
  return recordAudit(client, {
    apiKey: gs.game,
    actor: meta.actor,
    credential: meta.credential,
    requestId: meta.requestId,
    path: meta.path,
    action,
    target: `${gs.stage}:${target}`,
    after,
    at: meta.at,
  });
}

/** Deletes the player's entry on the board of the current period (a cheater's), with its mirror and rank count. */
export async function deleteEntry(
  env: LeaderboardEnv,
  gs: GameScope,
  code: string,
  playerId: string,
  meta: WriteMeta,
) {
  const { lb, partition } = await planOf(env, gs, code);
  return withTransaction(env.pool, async (client) => {
    const locked = await lockBoardEntry(client, gs, boardKey(lb, partition, meta.at), playerId);
    if (!locked?.entry) throw playersErrors.entryNotFound(code, playerId);
    const row = await deleteEntryRow(client, locked.boardId, playerId);
    if (!row) throw playersErrors.entryNotFound(code, playerId);
    await deleteMirrors(client, gs, [{ collection: lb.collection, docId: row.docId }]);
    await applyBucketChanges(client, [{ boardId: locked.boardId, key: row.ord, delta: -1 }]);
    const values = (locked.entry.vals as unknown[]).map((v) => (v === null ? null : toWire(fromStored(v))));
    const answer = { leaderboardShortCode: code, playerId, deleted: 1 };
    await audit(client, gs, meta, 'leaderboards.entry.delete', `${code}/${playerId}`, { ...answer, values });
    return answer;
  });
}

/**
 * Resets the leaderboard (every partition) or one partition now: deletes its boards of every period and
 * definition with their entries, rank buckets and mirror documents. The next event starts it afresh.
 */
export async function resetLeaderboard(env: LeaderboardEnv, gs: GameScope, code: string, meta: WriteMeta) {
  const { lb, partition } = await planOf(env, gs, code);
  return withTransaction(env.pool, async (client) => {
    const gone = await deleteBoards(client, gs, {
      leaderboard: lb.shortCode,
      partition: partition || undefined,
      collection: lb.collection,
    });
    const answer = { leaderboardShortCode: code, ...gone };
    await audit(client, gs, meta, 'leaderboards.reset', code, answer);
    return answer;
  });
}
