// Spark.getLeaderboards(): the host side. Reads run the runtime's own leaderboard reads (the
// LeaderboardDataRequest and AroundMeLeaderboardRequest handlers, read for an administrator, so the entries are
// shaped as those answers' `data`), always in the executing game's stage and on the execution's connection once it
// has one; deleteEntry removes the player's entry of the current period in the execution's transaction, as the
// console's delete does (its mirror document and rank count with it).
import { loadStageEntities } from '../nosql/stage-config.js';
import { boardKey, boardShortCode, findBoard } from '../runtime/boards.js';
import { aroundMe, boardNamed, leaderboardData } from '../runtime/game-requests.js';
import { valuesKey } from '../runtime/ordering.js';
import { periodStart } from '../runtime/periods.js';
import type { Answer } from '../runtime/request-kit.js';
import type { LeaderboardPlan } from '../runtime/runtime-config.js';
import { currentBoards, deleteEntryRow } from '../store/leaderboard-admin.js';
import { countEntries, entriesBefore } from '../store/leaderboard-reads.js';
import { deleteMirrors } from '../store/player-admin.js';
import { applyBucketChanges } from '../store/rank-buckets.js';
import { lockBoardEntry } from '../store/runtime-boards.js';
import { configCache, runtimeEnv } from './host-runtime.js';
import type { Session } from './session.js';

const MAX_ENTRIES = 1000;
const MAX_PARTITIONS = 200;

function count(v: unknown, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new Error(`a count or offset is a whole number from 0 to ${max}`);
  return n;
}

function entries(answer: Answer): Record<string, unknown>[] {
  const failed = (answer as { error?: unknown }).error;
  if (failed) throw new Error(`the leaderboard read failed: ${JSON.stringify(failed).slice(0, 200)}`);
  return (answer as { data: Record<string, unknown>[] }).data;
}

async function plan(
  session: Session,
  code: string,
): Promise<{ lb: LeaderboardPlan; partition: string } | undefined> {
  const pool = session.readPool();
  const config = await configCache(session.env).get(pool, session.gs.game, session.gs.stage);
  return config ? boardNamed(config, code) : undefined;
}

async function describe(session: Session, code: string, lb: LeaderboardPlan, partition: string) {
  const staged = await loadStageEntities(session.readPool(), session.gs);
  const named = staged?.config['~leaderboards']?.find((l) => l.shortCode === lb.shortCode);
  return {
    shortCode: code,
    name: named?.name ?? lb.shortCode,
    partitioned: lb.partitions.length > 0 && partition === '',
    scoreFields: lb.fields.filter((f) => f.ranks).map((f) => f.attribute),
  };
}

async function boardId(
  session: Session,
  lb: LeaderboardPlan,
  partition: string,
): Promise<string | undefined> {
  const board = await findBoard(session.readPool(), session.gs, lb, partition, session.env.clock());
  return board?.boardId;
}

async function call(session: Session, a: Record<string, unknown>): Promise<unknown> {
  if (a.op === 'list') {
    const config = await configCache(session.env).get(session.readPool(), session.gs.game, session.gs.stage);
    return [...(config?.leaderboards.keys() ?? [])];
  }
  const code = typeof a.shortCode === 'string' ? a.shortCode.slice(0, 300) : '';
  const named = await plan(session, code);
  if (!named) return null;
  const { lb, partition } = named;
  const input = { env: runtimeEnv(session, session.readPool()), gs: session.gs, admin: true };
  switch (a.op) {
    case 'describe':
      return describe(session, code, lb, partition);
    case 'entries':
      return entries(
        await leaderboardData({
          ...input,
          body: {
            leaderboardShortCode: code,
            entryCount: count(a.count, 50, MAX_ENTRIES),
            offset: count(a.offset, 0, 1e9),
          },
        }),
      );
    case 'fromPlayer': {
      const playerId = String(a.playerId ?? '').slice(0, 200);
      const own = await aroundMe({ ...input, body: { leaderboardShortCode: code, playerId, entryCount: 1 } });
      if ((own as { error?: unknown }).error) return [];
      const me = entries(own).find((e) => e.userId === playerId);
      if (!me) return [];
      const body = {
        leaderboardShortCode: code,
        offset: Number(me.rank) - 1,
        entryCount: count(a.count, 50, MAX_ENTRIES),
      };
      return entries(await leaderboardData({ ...input, body }));
    }
    case 'count': {
      const id = await boardId(session, lb, partition);
      return id === undefined ? 0 : countEntries(session.readPool(), id);
    }
    case 'rankForScore': {
      // The rank the score would take: after every entry strictly better on the first ranking field.
      const field = lb.fields.find((f) => f.ranks);
      if (!field || typeof a.score !== 'number' || !Number.isFinite(a.score)) return null;
      const id = await boardId(session, lb, partition);
      if (id === undefined) return 1;
      return (await entriesBefore(session.readPool(), id, valuesKey([field], [a.score]))) + 1;
    }
    case 'partitions': {
      if (partition !== '' || lb.partitions.length === 0) return [];
      const start = periodStart(lb.reset, session.env.clock());
      const boards = await currentBoards(
        session.readPool(),
        session.gs,
        { leaderboard: lb.shortCode, periodStart: start, spec: lb.spec },
        MAX_PARTITIONS,
      );
      return boards.map((b) => boardShortCode(lb, { code: b.partition, values: b.partValues }));
    }
    case 'deleteEntry': {
      const playerId = String(a.playerId ?? '').slice(0, 200);
      const tx = await session.transaction();
      const locked = await lockBoardEntry(
        tx.client,
        session.gs,
        boardKey(lb, partition, session.env.clock()),
        playerId,
      );
      if (!locked?.entry) return false;
      const row = await deleteEntryRow(tx.client, locked.boardId, playerId);
      if (!row) return false;
      await deleteMirrors(tx.client, session.gs, [{ collection: lb.collection, docId: row.docId }]);
      await applyBucketChanges(tx.client, [{ boardId: locked.boardId, key: row.ord, delta: -1 }]);
      return true;
    }
    default:
      throw new Error(`unknown leaderboard call ${String(a.op).slice(0, 50)}`);
  }
}

/** One leaderboard call of a script; null for a leaderboard the stage does not have. */
export async function leaderboardCall(session: Session, a: Record<string, unknown>): Promise<string> {
  return JSON.stringify(await call(session, a));
}
