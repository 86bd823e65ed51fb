// The nosql_documents table: document writes (insert, save, remove, update write-back), sizes, and the bulk
// reads and writes of exports and imports. Reads by filter are in document-reads.ts. Documents arrive here
// already in their stored JSON text; the nosql room turns request documents into that text.
import type pg from 'pg';
import type { FilterNode } from '../query/filter.js';
import { needsResidual } from '../query/filter-residual.js';
import { idKey } from '../query/values.js';
import { type CompiledWhere, parseStored, readTextBatches, whereSql } from './document-reads.js';
import { preparedQuery, query } from './query.js';
import type { Db, GameScope, Scope } from './scope.js';
import { readSnapshot } from './snapshot-cursor.js';

/** Documents as the store keeps them: the id key (primary key) and the stored JSON text. */
export interface StoredTexts {
  ids: string[];
  texts: string[];
}

/**
 * Inserts documents, all or none: a duplicate id (also within the list) or unique key fails the whole
 * statement with SQLSTATE 23505.
 */
export async function insertDocuments(db: Db, scope: Scope, docs: StoredTexts): Promise<void> {
  if (docs.ids.length === 0) return;
  await preparedQuery(
    db,
    'pb_insert_documents',
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
     SELECT $1, $2, $3, u.id, u.doc::jsonb FROM unnest($4::text[], $5::text[]) AS u(id, doc)`,
    [scope.game, scope.stage, scope.collection, docs.ids, docs.texts],
  );
}

/** Inserts the document, or replaces the one with the same id; answers true when it replaced one. */
export async function saveDocument(db: Db, scope: Scope, id: string, text: string): Promise<boolean> {
  const { rows } = await preparedQuery<{ inserted: boolean }>(
    db,
    'pb_save_document',
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (game_id, stage, collection, id) DO UPDATE SET doc = EXCLUDED.doc
     RETURNING (xmax = 0) AS inserted`,
    [scope.game, scope.stage, scope.collection, id, text],
  );
  return rows[0]?.inserted === false;
}

export async function removeDocuments(db: Db, scope: Scope, filter: FilterNode): Promise<number> {
  if (needsResidual(filter)) {
    // The exact matches' ids first (read in id order), then removed by id.
    const ids: string[] = [];
    const plan = { filter, sort: [], skip: 0, limit: undefined };
    for await (const texts of readTextBatches(db, scope, plan))
      for (const text of texts) ids.push(idKey(parseStored(text)._id!));
    let removed = 0;
    for (let i = 0; i < ids.length; i += 1000)
      removed += await removeByIds(db, scope, ids.slice(i, i + 1000));
    return removed;
  }
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

/** The next matching rows after `afterId`, in id order, locked until the transaction ends (updates). */
export async function lockMatches(
  client: pg.PoolClient,
  where: CompiledWhere,
  afterId: string | undefined,
  limit: number,
): Promise<Array<{ id: string; doc: string }>> {
  const values = [...where.values];
  let text = where.text;
  if (afterId !== undefined) {
    values.push(afterId);
    text += ` AND id > $${values.length}`;
  }
  values.push(limit);
  const { rows } = await client.query<{ id: string; doc: string }>(
    `SELECT id, doc::text AS doc FROM nosql_documents WHERE ${text} ORDER BY id LIMIT $${values.length} FOR UPDATE`,
    values,
  );
  return rows;
}

/**
 * The first matching row in `sort` order (then by id), locked until the transaction ends: the one document a
 * findAndModify works on. `sort` is a compiled ORDER BY list over `doc`, or empty for id order.
 */
export async function lockFirstMatch(
  client: pg.PoolClient,
  where: CompiledWhere,
  sort: string,
): Promise<{ id: string; doc: string } | undefined> {
  const order = sort === '' ? 'id' : `${sort}, id`;
  const { rows } = await client.query<{ id: string; doc: string }>(
    `SELECT id, doc::text AS doc FROM nosql_documents WHERE ${where.text} ORDER BY ${order} LIMIT 1 FOR UPDATE`,
    where.values,
  );
  return rows[0];
}

/**
 * Matching rows in `sort` order (then by id), `limit` of them from `offset`, locked until the transaction ends:
 * a findAndModify whose filter has a residual part reads on until one really matches.
 */
export async function lockSortedMatches(
  client: pg.PoolClient,
  where: CompiledWhere,
  sort: string,
  offset: number,
  limit: number,
): Promise<Array<{ id: string; doc: string }>> {
  const order = sort === '' ? 'id' : `${sort}, id`;
  const values = [...where.values, offset, limit];
  const n = where.values.length;
  const { rows } = await client.query<{ id: string; doc: string }>(
    `SELECT id, doc::text AS doc FROM nosql_documents WHERE ${where.text} ORDER BY ${order} OFFSET $${n + 1} LIMIT $${n + 2} FOR UPDATE`,
    values,
  );
  return rows;
}

/** Removes the documents with these id keys; answers how many there were. */
export async function removeByIds(db: Db, scope: Scope, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await query(
    db,
    'DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = ANY($4::text[])',
    [scope.game, scope.stage, scope.collection, ids],
  );
  return result.rowCount ?? 0;
}

/** Removes the document with this id key; true when there was one. */
export async function removeById(db: Db, scope: Scope, id: string): Promise<boolean> {
  const result = await query(
    db,
    'DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND collection = $3 AND id = $4',
    [scope.game, scope.stage, scope.collection, id],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Writes updated documents back; `literal` is their stored texts as one text[] literal, in `ids` order. */
export async function writeBack(client: pg.PoolClient, scope: Scope, ids: string[], literal: string) {
  if (ids.length === 0) return;
  await client.query(
    `UPDATE nosql_documents AS d SET doc = u.doc::jsonb
     FROM unnest($4::text[], $5::text[]) AS u(id, doc)
     WHERE d.game_id = $1 AND d.stage = $2 AND d.collection = $3 AND d.id = u.id`,
    [scope.game, scope.stage, scope.collection, ids, literal],
  );
}

export interface DocumentSizes {
  count: number;
  /** Bytes of the stored documents. */
  size: number;
}

/** Count and stored size of a collection's documents, or of a whole game stage's (no collection given). */
export async function documentSizes(db: Db, scope: Scope | GameScope): Promise<DocumentSizes> {
  const params = [scope.game, scope.stage];
  let where = 'game_id = $1 AND stage = $2';
  if ('collection' in scope) {
    params.push(scope.collection);
    where += ' AND collection = $3';
  }
  const { rows } = await query<{ n: string; size: string }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(pg_column_size(doc)), 0)::int8 AS size FROM nosql_documents WHERE ${where}`,
    params,
  );
  return { count: Number(rows[0]?.n ?? 0), size: Number(rows[0]?.size ?? 0) };
}

/** Every document of the game's stage, by collection then id, in batches read from one snapshot (exports). */
export function readStageDocuments(
  pool: pg.Pool,
  scope: GameScope,
  batchSize?: number,
): AsyncGenerator<Array<{ collection: string; doc: Record<string, unknown> }>> {
  return readSnapshot(
    pool,
    'SELECT collection, doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 ORDER BY collection, id',
    [scope.game, scope.stage],
    batchSize,
  );
}

/** Documents of several collections, each a new key (imports); answers the (collection, id) pairs written. */
export async function importDocuments(
  client: pg.PoolClient,
  scope: GameScope,
  docs: StoredTexts & { collections: string[] },
): Promise<Array<{ collection: string; id: string }>> {
  const { rows } = await client.query<{ collection: string; id: string }>(
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
     SELECT $1, $2, u.collection, u.id, u.doc::jsonb FROM unnest($3::text[], $4::text[], $5::text[]) AS u(collection, id, doc)
     ON CONFLICT (game_id, stage, collection, id) DO NOTHING
     RETURNING collection, id`,
    [scope.game, scope.stage, docs.collections, docs.ids, docs.texts],
  );
  return rows;
}

/**
 * Whether this database holds the documents. In the all-in-one process it does; a config server whose nosql
 * role keeps its own database cannot reach them.
 */
export async function hasDocumentTable(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>("SELECT to_regclass('nosql_documents') IS NOT NULL AS ok");
  return rows[0]?.ok === true;
}

/** The documents of the stage's meta collections as whole rows without game and stage (snapshots keep them so). */
export async function readMetaDocuments(db: Db, scope: GameScope): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(d) - 'game_id' - 'stage' AS row FROM nosql_documents d
     WHERE d.game_id = $1 AND d.stage = $2 AND starts_with(d.collection, 'meta.')
     ORDER BY d.collection, d.id`,
    [scope.game, scope.stage],
  );
  return rows.map((r) => r.row);
}

/** Inside the caller's transaction: the stage's meta documents become exactly `rows` (as readMetaDocuments gave). */
export async function replaceMetaDocuments(
  client: pg.PoolClient,
  scope: GameScope,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  await client.query(
    `DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND starts_with(collection, 'meta.')`,
    [scope.game, scope.stage],
  );
  if (rows.length === 0) return;
  const full = rows.map((r) => ({ ...r, game_id: scope.game, stage: scope.stage }));
  await client.query(
    `INSERT INTO nosql_documents SELECT * FROM jsonb_populate_recordset(NULL::nosql_documents, $1::jsonb)`,
    [JSON.stringify(full)],
  );
}
