// Player administration (src/players): the statements that find, touch, export and erase one runtime player and
// everything keyed by its id: the player document, running-total records and leaderboard mirror documents
// (nosql_documents), leaderboard entries (runtime_entries), devices, login failures and data items.
import type pg from 'pg';
import { type Doc, fromStored, type Value } from '../query/values.js';
import { withTransaction } from './db.js';
import type { Db, GameScope } from './scope.js';

/** A transaction whose reads share one snapshot (REPEATABLE READ) and that may write (the export's audit). */
export function withPlayerSnapshot<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ');
}

const PLAYERS = `game_id = $1 AND stage = $2 AND collection = 'player'`;

/** What a search matches: a prefix of the user or display name (any case), the id, or an external id value. */
export type PlayerSearchField = 'userName' | 'displayName' | 'id' | 'externalId';

export interface PlayerSearch {
  /** undefined: any of the fields. */
  by: PlayerSearchField | undefined;
  text: string;
  /** The id key the text names when read as a player id (ObjectId or string). */
  idKey: string;
  skip: number;
  limit: number;
}

// $3 is the text, $4 the id key.
const MATCH: Record<PlayerSearchField, string> = {
  userName: `starts_with(lower(doc ->> 'userName'), lower($3::text))`,
  displayName: `starts_with(lower(doc ->> 'displayName'), lower($3::text))`,
  id: 'id = $4::text',
  externalId: `jsonb_path_exists(doc -> 'externalIds', '$.* ? (@ == $v)', jsonb_build_object('v', $3::text))`,
};

/** One page of players (by id) and one more, so the caller knows whether more follow. */
export async function searchPlayers(db: Db, gs: GameScope, search: PlayerSearch): Promise<Doc[]> {
  const fields = search.by ? [search.by] : (Object.keys(MATCH) as PlayerSearchField[]);
  const where = fields.map((f) => MATCH[f]).join(' OR ');
  // Every parameter is named in the statement (a parameter it does not use has no type).
  const { rows } = await db.query<{ doc: unknown }>(
    `SELECT doc FROM nosql_documents WHERE ${PLAYERS} AND $3::text IS NOT NULL AND $4::text IS NOT NULL
       AND (${where}) ORDER BY id OFFSET $5 LIMIT $6`,
    [gs.game, gs.stage, search.text, search.idKey, search.skip, search.limit + 1],
  );
  return rows.map((r) => fromStored(r.doc) as Doc);
}

/** Sets the player's lastSeen (a stored value), keeping the document's field order record ($o) whole. */
export async function touchPlayer(db: Db, gs: GameScope, key: string, storedWhen: string): Promise<void> {
  await db.query({
    name: 'runtime-player-touch',
    text: `UPDATE nosql_documents SET doc = CASE
        WHEN jsonb_typeof(doc -> '$o') = 'array' AND NOT ((doc -> '$o') ? 'lastSeen')
        THEN jsonb_set(doc || jsonb_build_object('lastSeen', $4::jsonb), '{$o}', (doc -> '$o') || '["lastSeen"]')
        ELSE doc || jsonb_build_object('lastSeen', $4::jsonb) END
      WHERE ${PLAYERS} AND id = $3`,
    values: [gs.game, gs.stage, key, storedWhen],
  });
}

export interface PlayerEntryRow {
  boardId: string;
  leaderboard: string;
  partition: string;
  periodStart: number;
  ord: Buffer;
  vals: unknown[];
  whenMs: number;
  userName: string | null;
  docId: string;
}

interface EntryRecord {
  board_id: string;
  leaderboard: string;
  partition: string;
  period_start: string;
  ord: Buffer;
  vals: unknown[];
  when_ms: string;
  user_name: string | null;
  doc_id: string;
}

const toEntry = (r: EntryRecord): PlayerEntryRow => ({
  boardId: r.board_id,
  leaderboard: r.leaderboard,
  partition: r.partition,
  periodStart: Number(r.period_start),
  ord: r.ord,
  vals: r.vals.map((v) => (v === null ? null : fromStored(v))),
  whenMs: Number(r.when_ms),
  userName: r.user_name,
  docId: r.doc_id,
});

const ENTRY_COLUMNS =
  'e.board_id, b.leaderboard, b.partition, b.period_start, e.ord, e.vals, e.when_ms, e.user_name, e.doc_id';

/** The player's leaderboard entries on every board of the stage. */
export async function playerEntries(db: Db, gs: GameScope, playerId: string): Promise<PlayerEntryRow[]> {
  const { rows } = await db.query<EntryRecord>(
    `SELECT ${ENTRY_COLUMNS} FROM runtime_entries e JOIN runtime_boards b ON b.board_id = e.board_id
     WHERE b.game_id = $1 AND b.stage = $2 AND e.player_id = $3 ORDER BY b.leaderboard, b.partition, e.board_id`,
    [gs.game, gs.stage, playerId],
  );
  return rows.map(toEntry);
}

/** Deletes the player's entries on every board of the stage with their mirror documents; answers the entries. */
export async function deletePlayerEntries(
  client: pg.PoolClient,
  gs: GameScope,
  playerId: string,
): Promise<PlayerEntryRow[]> {
  const { rows } = await client.query<EntryRecord>(
    `DELETE FROM runtime_entries e USING runtime_boards b
     WHERE b.board_id = e.board_id AND b.game_id = $1 AND b.stage = $2 AND e.player_id = $3
     RETURNING ${ENTRY_COLUMNS}`,
    [gs.game, gs.stage, playerId],
  );
  const entries = rows.map(toEntry);
  await deleteMirrors(
    client,
    gs,
    entries.map((e) => ({ collection: `${e.leaderboard}-leaderboard`, docId: e.docId })),
  );
  return entries;
}

/** Deletes leaderboard mirror documents by their collection and ObjectId hex. */
export async function deleteMirrors(
  client: pg.PoolClient,
  gs: GameScope,
  mirrors: { collection: string; docId: string }[],
): Promise<void> {
  if (mirrors.length === 0) return;
  await client.query(
    `DELETE FROM nosql_documents d USING unnest($3::text[], $4::text[]) AS m(collection, doc_id)
     WHERE d.game_id = $1 AND d.stage = $2 AND d.collection = m.collection
       AND d.id = '{"$oid":"' || m.doc_id || '"}'`,
    [gs.game, gs.stage, mirrors.map((m) => m.collection), mirrors.map((m) => m.docId)],
  );
}

/** The player's documents in the running-total and leaderboard collections (their `userId` is the player id). */
const KEYED_DOCS = `game_id = $1 AND stage = $2
  AND (right(collection, 13) = '-runningTotal' OR right(collection, 12) = '-leaderboard')
  AND doc ->> 'userId' = $3`;

export async function playerKeyedDocs(
  db: Db,
  gs: GameScope,
  playerId: string,
): Promise<{ collection: string; doc: Doc }[]> {
  const { rows } = await db.query<{ collection: string; doc: unknown }>(
    `SELECT collection, doc FROM nosql_documents WHERE ${KEYED_DOCS} ORDER BY collection, id`,
    [gs.game, gs.stage, playerId],
  );
  return rows.map((r) => ({ collection: r.collection, doc: fromStored(r.doc) as Doc }));
}

export interface ErasedCounts {
  runningTotals: number;
  leaderboardDocuments: number;
  dataItems: number;
  devices: number;
  loginFailures: number;
}

/**
 * Deletes everything but the entries (deletePlayerEntries) and the player document keyed by the player: its
 * running-total records and any mirror document left, its data items (item id = player id, every type), its
 * devices and its user name's login failures.
 */
export async function deletePlayerKeyed(
  client: pg.PoolClient,
  gs: GameScope,
  playerId: string,
  userName: string | null,
): Promise<ErasedCounts> {
  const params = [gs.game, gs.stage, playerId];
  const { rows } = await client.query<{ collection: string }>(
    `DELETE FROM nosql_documents WHERE ${KEYED_DOCS} RETURNING collection`,
    params,
  );
  const items = await client.query(
    'DELETE FROM data_items WHERE game_id = $1 AND stage = $2 AND item_id = $3',
    params,
  );
  const devices = await client.query(
    'DELETE FROM runtime_devices WHERE game_id = $1 AND stage = $2 AND player_id = $3',
    params,
  );
  const failures =
    userName === null
      ? { rowCount: 0 }
      : await client.query(
          'DELETE FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3',
          [gs.game, gs.stage, userName],
        );
  return {
    runningTotals: rows.filter((r) => r.collection.endsWith('-runningTotal')).length,
    leaderboardDocuments: rows.filter((r) => r.collection.endsWith('-leaderboard')).length,
    dataItems: items.rowCount ?? 0,
    devices: devices.rowCount ?? 0,
    loginFailures: failures.rowCount ?? 0,
  };
}

export async function deletePlayerDoc(client: pg.PoolClient, gs: GameScope, key: string): Promise<boolean> {
  const { rowCount } = await client.query(`DELETE FROM nosql_documents WHERE ${PLAYERS} AND id = $3`, [
    gs.game,
    gs.stage,
    key,
  ]);
  return rowCount === 1;
}

/** The player's data items (item id = player id) of every type, live or expired. */
export async function playerItems(
  db: Db,
  gs: GameScope,
  playerId: string,
): Promise<{ type: string; data: Value; version: string; expiresAt: Date | null; updatedAt: Date }[]> {
  const { rows } = await db.query<{
    type: string;
    data: unknown;
    version: string;
    expires_at: Date | null;
    updated_at: Date;
  }>(
    `SELECT type, data, version, expires_at, updated_at FROM data_items
     WHERE game_id = $1 AND stage = $2 AND item_id = $3 ORDER BY type`,
    [gs.game, gs.stage, playerId],
  );
  return rows.map((r) => ({
    type: r.type,
    data: fromStored(r.data),
    version: r.version,
    expiresAt: r.expires_at,
    updatedAt: r.updated_at,
  }));
}

export async function playerDevices(db: Db, gs: GameScope, playerId: string): Promise<string[]> {
  const { rows } = await db.query<{ device_id: string }>(
    'SELECT device_id FROM runtime_devices WHERE game_id = $1 AND stage = $2 AND player_id = $3 ORDER BY device_id',
    [gs.game, gs.stage, playerId],
  );
  return rows.map((r) => r.device_id);
}

export async function loginFailures(
  db: Db,
  gs: GameScope,
  userName: string,
): Promise<{ failures: number; lockedUntil: number } | undefined> {
  const { rows } = await db.query<{ failures: number; locked_until: string }>(
    'SELECT failures, locked_until FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3',
    [gs.game, gs.stage, userName],
  );
  const row = rows[0];
  return row ? { failures: row.failures, lockedUntil: Number(row.locked_until) } : undefined;
}
