// The runtime's reads and writes of nosql_documents (players, running totals, leaderboard mirrors), stored form.
import { type Doc, fromStored, idKey, ObjectId, storedText, type Value } from '../query/values.js';

import type { Db } from '../store/scope.js';

export type { Db };
export type Stage = 'live' | 'preview';

/** One game's data in one stage: the tenant of every call here. */
export interface GameStage {
  game: string;
  stage: Stage;
}

export interface StoredDoc {
  key: string;
  doc: Doc;
}

/** The id key of a player id as requests carry it: 24 hex digits are an ObjectId, anything else a string. */
export function playerKey(playerId: string): string {
  return idKey(/^[0-9a-f]{24}$/.test(playerId) ? ObjectId.createFromHexString(playerId) : playerId);
}

/** The wire form of a document's _id, as a player id: an ObjectId's hex, a string as it is. */
export function idText(id: Value | undefined): string {
  if (id instanceof ObjectId) return id.toHexString();
  return typeof id === 'string' ? id : JSON.stringify(id ?? null);
}

export async function readDoc(
  db: Db,
  gs: GameStage,
  collection: string,
  key: string,
  forUpdate = false,
): Promise<Doc | undefined> {
  const { rows } = await db.query<{ doc: unknown }>({
    // Named statements (here and below): prepared once per connection, not planned on every request.
    name: forUpdate ? 'runtime-doc-lock' : 'runtime-doc-read',
    text: `SELECT doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = $4
     ${forUpdate ? 'FOR UPDATE' : ''}`,
    values: [gs.game, gs.stage, collection, key],
  });
  return rows[0] ? (fromStored(rows[0].doc) as Doc) : undefined;
}

/** Inserts unless the id exists; answers whether it inserted. */
export async function insertDoc(db: Db, gs: GameStage, collection: string, doc: Doc): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'runtime-doc-insert',
    text: `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO NOTHING`,
    values: [gs.game, gs.stage, collection, idKey(doc._id as Value), storedText(doc)],
  });
  return rowCount === 1;
}

/** Inserts or replaces the document with the same _id. */
export async function writeDoc(db: Db, gs: GameStage, collection: string, doc: Doc): Promise<void> {
  await db.query({
    name: 'runtime-doc-write',
    text: `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO UPDATE SET doc = EXCLUDED.doc`,
    values: [gs.game, gs.stage, collection, idKey(doc._id as Value), storedText(doc)],
  });
}

/** The id key of a mirror document's ObjectId given as hex, as SQL builds it for many rows at once. */
export const OID_KEY_SQL = (hexColumn: string) => `'{"$oid":"' || ${hexColumn} || '"}'`;
