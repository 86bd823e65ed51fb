// Player administration: search, read, edit, ban/unban, reset sessions, erase and export one runtime player of a
// stage. Every write records its audit entry in its own transaction (docs/players.md).
import type pg from 'pg';
import type { Static } from 'typebox';
import { type Doc, fromWire, toWire, type Value } from '../query/values.js';
import { idText, playerKey, readDoc, writeDoc } from '../runtime/doc-store.js';
import { isBanned } from '../runtime/players.js';
import { recordAudit } from '../store/audit.js';
import { withTransaction } from '../store/db.js';
import {
  deletePlayerDoc,
  deletePlayerEntries,
  deletePlayerKeyed,
  type ErasedCounts,
  loginFailures,
  type PlayerSearchField,
  playerDevices,
  playerEntries,
  playerItems,
  playerKeyedDocs,
  searchPlayers,
  withPlayerSnapshot,
} from '../store/player-admin.js';
import { applyBucketChanges } from '../store/rank-buckets.js';
import { clearFailures } from '../store/runtime-players.js';
import type { GameScope } from '../store/scope.js';
import { playersErrors } from './errors.js';
import type { PlayerOut, PlayerSummary } from './player-schemas.js';

const PLAYER = 'player';
export const CURRENCIES = [
  'currency1',
  'currency2',
  'currency3',
  'currency4',
  'currency5',
  'currency6',
] as const;

/** Who writes, for the audit entry written in the same transaction. */
export interface WriteMeta {
  actor: string;
  credential?: string | undefined;
  requestId?: string | undefined;
  path?: string | undefined;
  at: number;
}

const iso = (v: Value | undefined) => (v instanceof Date ? v.toISOString() : null);
const text = (v: Value | undefined) => (typeof v === 'string' ? v : null);

function banOut(doc: Doc): Static<typeof PlayerOut>['ban'] {
  if (!isBanned(doc)) return null;
  const b = doc.banned;
  const ban = (typeof b === 'object' && b !== null && !Array.isArray(b) ? b : {}) as Doc;
  return { at: iso(ban.at), by: text(ban.by), reason: text(ban.reason) };
}

/** A document field as a JSON object for the answer: {} when absent, {value: …} when not an object. */
function wireObject(v: Value | undefined): Record<string, unknown> {
  const wire = toWire(v ?? {});
  return typeof wire === 'object' && wire !== null && !Array.isArray(wire)
    ? (wire as Record<string, unknown>)
    : { value: wire };
}

/** A search hit: who the player is, when seen, whether banned. */
export function playerSummary(doc: Doc): Static<typeof PlayerSummary> {
  return {
    id: idText(doc._id),
    userName: text(doc.userName),
    displayName: text(doc.displayName),
    created: iso(doc.created),
    lastSeen: iso(doc.lastSeen),
    banned: isBanned(doc),
  };
}

/** One player as the console shows it; scriptData, privateData and externalIds in relaxed extended JSON. */
export function playerOut(doc: Doc): Static<typeof PlayerOut> {
  const currencies: Record<string, unknown> = {};
  for (const c of CURRENCIES) currencies[c] = toWire((doc[c] ?? 0) as Value);
  return {
    ...playerSummary(doc),
    ban: banOut(doc),
    currencies,
    scriptData: wireObject(doc.scriptData),
    privateData: wireObject(doc.privateData),
    externalIds: wireObject(doc.externalIds),
    sessionsResetAt: iso(doc.sessionsResetAt),
  };
}

export interface SearchInput {
  q: string;
  by: PlayerSearchField | undefined;
  skip: number;
  limit: number;
}

export async function findPlayers(pool: pg.Pool, gs: GameScope, input: SearchInput) {
  const docs = await searchPlayers(pool, gs, {
    by: input.by,
    text: input.q,
    idKey: playerKey(input.q),
    skip: input.skip,
    limit: input.limit,
  });
  return {
    players: docs.slice(0, input.limit).map(playerSummary),
    skip: input.skip,
    limit: input.limit,
    more: docs.length > input.limit,
  };
}

export async function getPlayer(pool: pg.Pool, gs: GameScope, playerId: string) {
  const doc = await readDoc(pool, gs, PLAYER, playerKey(playerId));
  if (!doc) throw playersErrors.playerNotFound(playerId);
  return playerOut(doc);
}

function audit(
  client: pg.PoolClient,
  gs: GameScope,
  meta: WriteMeta,
  action: string,
  target: string,
  change: { before?: unknown; after?: unknown },
) {
  return recordAudit(client, {
    apiKey: gs.game,
    actor: meta.actor,
    credential: meta.credential,
    requestId: meta.requestId,
    path: meta.path,
    action,
    target: `${gs.stage}:${target}`,
    ...change,
    at: meta.at,
  });
}

/** Reads the player locked for the transaction, changes it, writes it and its audit entry. */
async function changePlayer(
  pool: pg.Pool,
  gs: GameScope,
  playerId: string,
  meta: WriteMeta,
  action: string,
  change: (doc: Doc) => { before: unknown; after: unknown },
) {
  return withTransaction(pool, async (client) => {
    const doc = await readDoc(client, gs, PLAYER, playerKey(playerId), true);
    if (!doc) throw playersErrors.playerNotFound(playerId);
    const recorded = change(doc);
    await writeDoc(client, gs, PLAYER, doc);
    await audit(client, gs, meta, action, playerId, recorded);
    return playerOut(doc);
  });
}

export interface PlayerEdit {
  displayName?: string;
  currencies?: Partial<Record<(typeof CURRENCIES)[number], number>>;
  /** Relaxed or canonical extended JSON: replaces the whole scriptData. */
  scriptData?: Record<string, unknown>;
}

export async function editPlayer(
  pool: pg.Pool,
  gs: GameScope,
  playerId: string,
  edit: PlayerEdit,
  meta: WriteMeta,
) {
  const scriptData = edit.scriptData === undefined ? undefined : (fromWire(edit.scriptData) as Doc);
  return changePlayer(pool, gs, playerId, meta, 'players.update', (doc) => {
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    const set = (key: string, value: Value) => {
      before[key] = toWire((doc[key] ?? null) as Value);
      after[key] = toWire(value);
      doc[key] = value;
    };
    if (edit.displayName !== undefined) set('displayName', edit.displayName);
    for (const c of CURRENCIES) {
      const v = edit.currencies?.[c];
      if (v !== undefined) set(c, v);
    }
    if (scriptData !== undefined) set('scriptData', scriptData);
    return { before, after };
  });
}

export async function banPlayer(
  pool: pg.Pool,
  gs: GameScope,
  playerId: string,
  reason: string | null,
  meta: WriteMeta,
) {
  return changePlayer(pool, gs, playerId, meta, 'players.ban', (doc) => {
    const before = banOut(doc);
    doc.banned = { at: new Date(meta.at), by: meta.actor, reason };
    return { before: { ban: before }, after: { ban: banOut(doc) } };
  });
}

export async function unbanPlayer(pool: pg.Pool, gs: GameScope, playerId: string, meta: WriteMeta) {
  return changePlayer(pool, gs, playerId, meta, 'players.unban', (doc) => {
    const before = banOut(doc);
    delete doc.banned;
    return { before: { ban: before }, after: { ban: null } };
  });
}

/**
 * Resets the player's sessions. The runtime acts by playerId and stores no session or authToken (each login's
 * token is a fresh UUID that authorizes nothing), so there is nothing to revoke: the reset clears the login
 * lockout of the player's user name and records when it was done (sessionsResetAt).
 */
export async function resetSessions(pool: pg.Pool, gs: GameScope, playerId: string, meta: WriteMeta) {
  return withTransaction(pool, async (client) => {
    const doc = await readDoc(client, gs, PLAYER, playerKey(playerId), true);
    if (!doc) throw playersErrors.playerNotFound(playerId);
    const userName = text(doc.userName);
    const lockout = userName === null ? undefined : await loginFailures(client, gs, userName);
    if (userName !== null) await clearFailures(client, gs, userName);
    doc.sessionsResetAt = new Date(meta.at);
    await writeDoc(client, gs, PLAYER, doc);
    const after = { storedSessions: 0, lockoutCleared: lockout !== undefined };
    await audit(client, gs, meta, 'players.sessions.reset', playerId, { before: { lockout }, after });
    return after;
  });
}

export type EraseAnswer = ErasedCounts & { player: number; leaderboardEntries: number };

/**
 * Erases the player and everything keyed by its id, in one transaction: its leaderboard entries with their
 * mirror documents and rank-bucket counts, running-total records, data items, devices, login failures and the
 * player document. The audit entry keeps the counts only, never the erased data.
 */
export async function erasePlayer(
  pool: pg.Pool,
  gs: GameScope,
  playerId: string,
  meta: WriteMeta,
): Promise<EraseAnswer> {
  return withTransaction(pool, async (client) => {
    const key = playerKey(playerId);
    const doc = await readDoc(client, gs, PLAYER, key, true);
    if (!doc) throw playersErrors.playerNotFound(playerId);
    const entries = await deletePlayerEntries(client, gs, playerId);
    // Entries first (per-player rows), buckets last in their global order, as the runtime's writers do.
    await applyBucketChanges(
      client,
      entries.map((e) => ({ boardId: e.boardId, key: e.ord, delta: -1 as const })),
    );
    const keyed = await deletePlayerKeyed(client, gs, playerId, text(doc.userName));
    await deletePlayerDoc(client, gs, key);
    const answer = { player: 1, leaderboardEntries: entries.length, ...keyed };
    await audit(client, gs, meta, 'players.erase', playerId, { after: answer });
    return answer;
  });
}

/** Everything held about the player, as one JSON document (the password hash withheld); the read is audited. */
export async function exportPlayer(pool: pg.Pool, gs: GameScope, playerId: string, meta: WriteMeta) {
  return withPlayerSnapshot(pool, async (client) => {
    const doc = await readDoc(client, gs, PLAYER, playerKey(playerId));
    if (!doc) throw playersErrors.playerNotFound(playerId);
    const { password, ...held } = doc;
    const userName = text(doc.userName);
    const documents = await playerKeyedDocs(client, gs, playerId);
    const answer = {
      exportedAt: new Date(meta.at).toISOString(),
      game: gs.game,
      stage: gs.stage,
      playerId,
      player: toWire(held),
      passwordSet: typeof password === 'string',
      devices: await playerDevices(client, gs, playerId),
      loginFailures: userName === null ? null : ((await loginFailures(client, gs, userName)) ?? null),
      runningTotals: documents
        .filter((d) => d.collection.endsWith('-runningTotal'))
        .map((d) => ({ collection: d.collection, document: toWire(d.doc) })),
      leaderboardDocuments: documents
        .filter((d) => d.collection.endsWith('-leaderboard'))
        .map((d) => ({ collection: d.collection, document: toWire(d.doc) })),
      leaderboardEntries: (await playerEntries(client, gs, playerId)).map((e) => ({
        leaderboard: e.leaderboard,
        partition: e.partition,
        periodStart: new Date(e.periodStart).toISOString(),
        values: e.vals.map((v) => toWire(v as Value)),
        when: new Date(e.whenMs).toISOString(),
        userName: e.userName,
      })),
      dataItems: (await playerItems(client, gs, playerId)).map((i) => ({
        type: i.type,
        id: playerId,
        data: toWire(i.data),
        version: Number(i.version),
        expiresAt: i.expiresAt?.toISOString() ?? null,
        updatedAt: i.updatedAt.toISOString(),
      })),
    };
    await audit(client, gs, meta, 'players.export', playerId, {});
    return answer;
  });
}
