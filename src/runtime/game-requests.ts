// LogEventRequest, LeaderboardDataRequest and AroundMeLeaderboardRequest: the requests that run the configuration.
import { toWire, type Value } from '../query/values.js';
import {
  countEntries,
  entriesAround,
  entriesFrom,
  lastEntries,
  type RankedEntry,
  withSnapshot,
} from '../store/leaderboard-reads.js';
import { findBoard } from './boards.js';
import { type Db, playerKey } from './doc-store.js';
import { runtimeErrors } from './errors.js';
import { readEventAttributes } from './event-attributes.js';
import { applyEvent } from './log-event.js';
import { actingPlayer } from './player-requests.js';
import { shownName } from './players.js';
import { type Answer, fail, type RequestInput, readCount, readString } from './request-kit.js';
import type { LeaderboardPlan, RuntimeConfig } from './runtime-config.js';

const MAX_ENTRIES = 1000;
const RESERVED = new Set(['userId', 'userName', 'when', 'rank']);

async function configOf(input: RequestInput): Promise<RuntimeConfig> {
  const config = await input.env.configs.get(input.env.pool, input.gs.game, input.gs.stage);
  if (!config) throw runtimeErrors.notPublished(input.gs.game);
  return config;
}

export async function logEvent(input: RequestInput): Promise<Answer> {
  const acting = await actingPlayer(input);
  if ('error' in acting) return acting.error;
  const eventKey = readString(input.body, 'eventKey', true);
  if ('error' in eventKey) return eventKey.error;
  const plan = (await configOf(input)).events.get(eventKey.value as string);
  if (!plan) return fail('eventKey', 'INVALID');
  const read = readEventAttributes(plan.attributes, input.body);
  if ('errors' in read) return { error: read.errors };
  const { player } = acting;
  const written = await applyEvent(input.env.pool, input.gs, {
    plan,
    values: read.values,
    playerId: player.id,
    userName: shownName(player.doc),
    nowMs: input.env.clock(),
    playerKey: playerKey(player.id),
  });
  if (typeof written === 'string') return fail('playerId', written);
  if (written > 0) input.env.metrics.leaderboardWrites.inc({ stage: input.gs.stage }, written);
  return {};
}

/** LB or LB.ATTR.VALUE: the leaderboard and the partition code ('' for the whole leaderboard). */
export function boardNamed(
  config: RuntimeConfig,
  code: string,
): { lb: LeaderboardPlan; partition: string } | undefined {
  const dot = code.indexOf('.');
  const lb = config.leaderboards.get(dot < 0 ? code : code.slice(0, dot));
  const partition = dot < 0 ? '' : code.slice(dot + 1);
  if (!lb) return undefined;
  if (partition && !lb.partitions[0]) return undefined;
  if (partition && !partition.startsWith(`${lb.partitions[0]}.`)) return undefined;
  return { lb, partition };
}

function entryOut(
  lb: LeaderboardPlan,
  partValues: Record<string, unknown>,
  e: RankedEntry,
): Record<string, unknown> {
  const out: Record<string, unknown> = { userId: e.playerId, userName: e.userName };
  lb.fields.forEach((f, i) => {
    const v = e.values[i];
    if (v !== undefined && !RESERVED.has(f.attribute) && !Object.hasOwn(out, f.attribute)) {
      out[f.attribute] = toWire(v as Value);
    }
  });
  for (const [attribute, v] of Object.entries(partValues)) if (!RESERVED.has(attribute)) out[attribute] = v;
  out.when = new Date(e.whenMs).toISOString();
  out.rank = e.rank;
  return out;
}

interface ReadRequest {
  code: string;
  entryCount: number;
  includeFirst: number;
  includeLast: number;
}

function readLeaderboardFields(
  body: Record<string, unknown>,
  entryCountDefault: number,
): ReadRequest | { error: Answer } {
  const code = readString(body, 'leaderboardShortCode', true);
  if ('error' in code) return code;
  const entryCount = readCount(body, 'entryCount', entryCountDefault, MAX_ENTRIES);
  if ('error' in entryCount) return entryCount;
  const includeFirst = readCount(body, 'includeFirst', 0, MAX_ENTRIES);
  if ('error' in includeFirst) return includeFirst;
  const includeLast = readCount(body, 'includeLast', 0, MAX_ENTRIES);
  if ('error' in includeLast) return includeLast;
  return {
    code: code.value as string,
    entryCount: entryCount.value,
    includeFirst: includeFirst.value,
    includeLast: includeLast.value,
  };
}

/** Reads one board: `data` from `pick`, plus `first` and `last` when asked for (then all in one snapshot). */
async function readBoard(
  input: RequestInput,
  req: ReadRequest,
  pick: (db: Db, boardId: string) => Promise<RankedEntry[]>,
): Promise<Answer> {
  const named = boardNamed(await configOf(input), req.code);
  if (!named) return fail('leaderboardShortCode', 'INVALID');
  const { lb, partition } = named;
  const read = async (db: Db) => {
    const board = await findBoard(db, input.gs, lb, partition, input.env.clock());
    if (!board)
      return { data: [] as RankedEntry[], first: [] as RankedEntry[], last: [] as RankedEntry[], part: {} };
    const total = req.includeLast > 0 ? await countEntries(db, board.boardId) : 0;
    return {
      data: await pick(db, board.boardId),
      first: await entriesFrom(db, board.boardId, 0, req.includeFirst),
      last: await lastEntries(db, board.boardId, req.includeLast, total),
      part: board.partValues,
    };
  };
  // One read is one statement, a snapshot of its own; several need a shared one.
  const several = req.includeFirst > 0 || req.includeLast > 0;
  const answer = several ? await withSnapshot(input.env.pool, read) : await read(input.env.pool);
  const render = (list: RankedEntry[]) => list.map((e) => entryOut(lb, answer.part, e));
  return {
    data: render(answer.data),
    ...(req.includeFirst > 0 ? { first: render(answer.first) } : {}),
    ...(req.includeLast > 0 ? { last: render(answer.last) } : {}),
    leaderboardShortCode: req.code,
  };
}

export async function leaderboardData(input: RequestInput): Promise<Answer> {
  const req = readLeaderboardFields(input.body, 50);
  if ('error' in req) return req.error;
  const offset = readCount(input.body, 'offset', 0, 1_000_000_000);
  if ('error' in offset) return offset.error;
  return readBoard(input, req, (db, boardId) => entriesFrom(db, boardId, offset.value, req.entryCount));
}

export async function aroundMe(input: RequestInput): Promise<Answer> {
  const playerId = readString(input.body, 'playerId', true);
  if ('error' in playerId) return playerId.error;
  const req = readLeaderboardFields(input.body, 50);
  if ('error' in req) return req.error;
  const id = playerId.value as string;
  // The player's existence and the board are read side by side: latency is one read, not two.
  const [acting, answer] = await Promise.all([
    actingPlayer(input),
    readBoard(input, req, (db, boardId) => entriesAround(db, boardId, id, req.entryCount)),
  ]);
  return 'error' in acting ? acting.error : answer;
}
