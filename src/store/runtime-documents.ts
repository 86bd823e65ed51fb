// The runtime's statements on nosql_documents: players, running totals and leaderboard mirror documents, in
// stored form. Named statements are prepared once per connection, not planned on every request.
import type pg from 'pg';
import { type Doc, fromStored, idKey, storedText, type Value } from '../query/values.js';
import type { Db, GameScope } from './scope.js';

export async function readDoc(
  db: Db,
  gs: GameScope,
  collection: string,
  key: string,
  forUpdate = false,
): Promise<Doc | undefined> {
  const { rows } = await db.query<{ doc: unknown }>({
    name: forUpdate ? 'runtime-doc-lock' : 'runtime-doc-read',
    text: `SELECT doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = $4
     ${forUpdate ? 'FOR UPDATE' : ''}`,
    values: [gs.game, gs.stage, collection, key],
  });
  return rows[0] ? (fromStored(rows[0].doc) as Doc) : undefined;
}

/**
 * Holds the document against deletion and rewrites (FOR KEY SHARE) until the transaction ends, so that an erase
 * waits for the transaction or the transaction sees the erase. Answers undefined when it is gone, else whether
 * its `banned` field is set (a player's ban, docs/players.md).
 */
export async function holdDoc(
  client: pg.PoolClient,
  gs: GameScope,
  collection: string,
  key: string,
): Promise<{ banned: boolean } | undefined> {
  const { rows } = await client.query<{ banned: boolean }>({
    name: 'runtime-doc-hold',
    text: `SELECT coalesce(doc -> 'banned', 'null'::jsonb) NOT IN ('null'::jsonb, 'false'::jsonb) AS banned
     FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = $4 FOR KEY SHARE`,
    values: [gs.game, gs.stage, collection, key],
  });
  return rows[0];
}

/** Inserts unless the id exists; answers whether it inserted. */
export async function insertDoc(db: Db, gs: GameScope, collection: string, doc: Doc): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'runtime-doc-insert',
    text: `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO NOTHING`,
    values: [gs.game, gs.stage, collection, idKey(doc._id as Value), storedText(doc)],
  });
  return rowCount === 1;
}

/** Inserts or replaces the document with the same _id. */
export async function writeDoc(db: Db, gs: GameScope, collection: string, doc: Doc): Promise<void> {
  await db.query({
    name: 'runtime-doc-write',
    text: `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO UPDATE SET doc = EXCLUDED.doc`,
    values: [gs.game, gs.stage, collection, idKey(doc._id as Value), storedText(doc)],
  });
}

/** The first document of `collection` (by id) whose userName is `userName`. */
export async function findByUserName(
  db: Db,
  gs: GameScope,
  collection: string,
  userName: string,
): Promise<Doc | undefined> {
  const { rows } = await db.query<{ doc: unknown }>(
    `SELECT doc FROM nosql_documents
     WHERE game_id = $1 AND stage = $2 AND collection = $3 AND doc ->> 'userName' = $4 ORDER BY id LIMIT 1`,
    [gs.game, gs.stage, collection, userName],
  );
  return rows[0] ? (fromStored(rows[0].doc) as Doc) : undefined;
}

/** The id key of a mirror document's ObjectId given as hex, as SQL builds it for many rows at once. */
const OID_KEY_SQL = (hexColumn: string) => `'{"$oid":"' || ${hexColumn} || '"}'`;

/** A board just made, and what it replaces: the same leaderboard and partition, older period or definition. */
export interface MadeBoard {
  leaderboard: string;
  partition: string;
  boardId: string;
  period: number;
  configSeq: number;
  /** The leaderboard's mirror collection. */
  collection: string;
}

/** Deletes the boards `made` replaces, their mirror documents first (their entries go with the boards). */
export async function removeReplacedBoards(client: pg.PoolClient, gs: GameScope, made: MadeBoard) {
  const older = `b.game_id = $1 AND b.stage = $2 AND b.leaderboard = $3 AND b.partition = $4 AND b.board_id <> $5
    AND (b.period_start < $6 OR (b.period_start = $6 AND b.config_seq < $7))`;
  const params = [
    gs.game,
    gs.stage,
    made.leaderboard,
    made.partition,
    made.boardId,
    made.period,
    made.configSeq,
  ];
  await client.query(
    `DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $8 AND id IN (
       SELECT ${OID_KEY_SQL('e.doc_id')} FROM runtime_boards b JOIN runtime_entries e ON e.board_id = b.board_id
       WHERE ${older})`,
    [...params, made.collection],
  );
  await client.query(`DELETE FROM runtime_boards b WHERE ${older}`, params);
}

// The entry and its mirror document in one statement; on a new entry the mirror is written only if the entry
// was (a concurrent first post of the same player wins the insert, and this one reads its entry and retries).
const WRITE_ENTRY = (insert: boolean) => `
  WITH e AS (
    ${
      insert
        ? `INSERT INTO runtime_entries (board_id, player_id, ord, vals, when_ms, user_name, doc_id)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) ON CONFLICT (board_id, player_id) DO NOTHING`
        : `UPDATE runtime_entries SET ord = $3, vals = $4::jsonb, when_ms = $5, user_name = $6
           WHERE board_id = $1 AND player_id = $2 AND doc_id = $7`
    } RETURNING 1)
  INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
  SELECT $8, $9, $10, $11, $12::jsonb FROM e
  ON CONFLICT (game_id, stage, collection, id) DO UPDATE SET doc = EXCLUDED.doc`;

/** A leaderboard entry as stored: `vals` is its values' stored JSON array text. */
export interface EntryWrite {
  insert: boolean;
  boardId: string;
  playerId: string;
  ord: Buffer;
  vals: string;
  whenMs: number;
  userName: string | null;
  docId: string;
}

/** Writes the entry and its mirror document; false when a concurrent first post made the entry first. */
export async function writeEntryWithMirror(
  client: pg.PoolClient,
  gs: GameScope,
  entry: EntryWrite,
  mirror: { collection: string; doc: Doc },
): Promise<boolean> {
  const { rowCount } = await client.query({
    name: entry.insert ? 'runtime-entry-insert' : 'runtime-entry-update',
    text: WRITE_ENTRY(entry.insert),
    values: [
      entry.boardId,
      entry.playerId,
      entry.ord,
      entry.vals,
      entry.whenMs,
      entry.userName,
      entry.docId,
      gs.game,
      gs.stage,
      mirror.collection,
      idKey(mirror.doc._id as Value),
      storedText(mirror.doc),
    ],
  });
  return rowCount === 1;
}
