// Writing documents: insert, save (upsert by _id) and remove, each one atomic statement.
import type { FilterNode } from '../query/filter.js';
import { type Doc, idKey } from '../query/values.js';
import { whereSql } from './read.js';
import type { Db, Scope } from './scope.js';
import { query } from './sql.js';
import { storedDocument } from './wire.js';

/**
 * Inserts documents that already carry their _id, all or none: a duplicate _id (also within the list) or
 * unique key fails the whole statement with SQLSTATE 23505.
 */
export async function insertDocuments(db: Db, scope: Scope, docs: Doc[]): Promise<void> {
  if (docs.length === 0) return;
  const ids = docs.map((d) => idKey(d._id!));
  const texts = docs.map(storedDocument);
  await query(
    db,
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
     SELECT $1, $2, $3, u.id, u.doc::jsonb FROM unnest($4::text[], $5::text[]) AS u(id, doc)`,
    [scope.game, scope.stage, scope.collection, ids, texts],
  );
}

/** Inserts the document, or replaces the one with the same _id; answers true when it replaced one. */
export async function saveDocument(db: Db, scope: Scope, doc: Doc): Promise<boolean> {
  const { rows } = await query<{ inserted: boolean }>(
    db,
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO UPDATE SET doc = EXCLUDED.doc
     RETURNING (xmax = 0) AS inserted`,
    [scope.game, scope.stage, scope.collection, idKey(doc._id!), storedDocument(doc)],
  );
  return rows[0]?.inserted === false;
}

export async function removeDocuments(db: Db, scope: Scope, filter: FilterNode): Promise<number> {
  const values: unknown[] = [];
  const where = whereSql(scope, filter, values);
  const result = await query(db, `DELETE FROM nosql_documents WHERE ${where}`, values);
  return result.rowCount ?? 0;
}

/** Removes every document of the collection; its indexes and catalogue row are the caller's. */
export async function removeAll(db: Db, scope: Scope): Promise<number> {
  const result = await query(
    db,
    'DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3',
    [scope.game, scope.stage, scope.collection],
  );
  return result.rowCount ?? 0;
}
