// The meta collections (meta.*) of a game's stage, read and replaced as a whole for snapshots and publishing.
import type pg from 'pg';
import { createIndex, type DdlOptions, dropIndex } from '../nosql/indexes.js';
import { parseFieldPath } from '../query/field-path.js';
import type { Db } from '../store/scope.js';

export type Stage = 'live' | 'preview';

export interface MetaIndex {
  collection: string;
  name: string;
  /** [path, direction] pairs, in order: an index's meaning. */
  keys: [string, 1 | -1][];
  unique: boolean;
}

/** Everything of a stage's meta collections: the collections made, their documents (whole rows), their indexes. */
export interface MetaContent {
  collections: string[];
  /** Rows of nosql_documents without game and stage, so the copy keeps the stored form exactly. */
  documents: Record<string, unknown>[];
  indexes: MetaIndex[];
}

export const EMPTY_META: MetaContent = { collections: [], documents: [], indexes: [] };

/** Reads what a snapshot stored; an older or empty value counts as no meta collections. */
export function asMeta(value: unknown): MetaContent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return EMPTY_META;
  const m = value as Partial<MetaContent>;
  return { collections: m.collections ?? [], documents: m.documents ?? [], indexes: m.indexes ?? [] };
}

/** What the API shows of a snapshot's meta collections: names, document counts, index names; never the rows. */
export function describeMeta(value: unknown): { collection: string; documents: number; indexes: string[] }[] {
  const m = asMeta(value);
  const names = [...new Set([...m.collections, ...m.documents.map((d) => String(d.collection))])].sort();
  return names.map((collection) => ({
    collection,
    documents: m.documents.filter((d) => d.collection === collection).length,
    indexes: m.indexes.filter((i) => i.collection === collection).map((i) => i.name),
  }));
}

/**
 * Whether this database holds the runtime documents. In the all-in-one process it does; a config server whose
 * nosql role keeps its own database cannot reach them, and snapshots then hold the configuration alone.
 */
export async function hasDocumentTable(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>("SELECT to_regclass('nosql_documents') IS NOT NULL AS ok");
  return rows[0]?.ok === true;
}

export async function readMeta(db: Db, apiKey: string, stage: Stage): Promise<MetaContent> {
  if (!(await hasDocumentTable(db))) return EMPTY_META;
  const collections = await db.query<{ collection: string }>(
    `SELECT collection FROM nosql_collections WHERE game_id = $1 AND stage = $2 AND kind = 'meta'
     ORDER BY collection`,
    [apiKey, stage],
  );
  const documents = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(d) - 'game_id' - 'stage' AS row FROM nosql_documents d
     WHERE d.game_id = $1 AND d.stage = $2 AND starts_with(d.collection, 'meta.')
     ORDER BY d.collection, d.id`,
    [apiKey, stage],
  );
  return {
    collections: collections.rows.map((r) => r.collection),
    documents: documents.rows.map((r) => r.row),
    indexes: await readMetaIndexes(db, apiKey, stage),
  };
}

async function readMetaIndexes(db: Db, apiKey: string, stage: Stage): Promise<MetaIndex[]> {
  const { rows } = await db.query<MetaIndex>(
    `SELECT collection, name, keys, "unique" FROM nosql_indexes
     WHERE game_id = $1 AND stage = $2 AND starts_with(collection, 'meta.') ORDER BY collection, created_at, name`,
    [apiKey, stage],
  );
  return rows;
}

/**
 * Makes the stage's meta collections and documents exactly those of `meta`, inside the caller's transaction.
 * Indexes are DDL (built CONCURRENTLY on PostgreSQL, outside any transaction): syncMetaIndexes follows the commit.
 */
export async function replaceMeta(
  client: pg.PoolClient,
  apiKey: string,
  stage: Stage,
  meta: MetaContent,
  at: number,
): Promise<void> {
  if (!(await hasDocumentTable(client))) return;
  const scope = [apiKey, stage];
  await client.query(
    `DELETE FROM nosql_documents WHERE game_id = $1 AND stage = $2 AND starts_with(collection, 'meta.')`,
    scope,
  );
  await client.query(
    `DELETE FROM nosql_collections WHERE game_id = $1 AND stage = $2 AND kind = 'meta'`,
    scope,
  );
  for (const collection of meta.collections) {
    await client.query(
      `INSERT INTO nosql_collections (game_id, stage, collection, kind, created_at) VALUES ($1, $2, $3, 'meta', $4)`,
      [apiKey, stage, collection, new Date(at)],
    );
  }
  if (meta.documents.length === 0) return;
  const rows = meta.documents.map((r) => ({ ...r, game_id: apiKey, stage }));
  await client.query(
    `INSERT INTO nosql_documents SELECT * FROM jsonb_populate_recordset(NULL::nosql_documents, $1::jsonb)`,
    [JSON.stringify(rows)],
  );
}

const indexKey = (i: MetaIndex) => JSON.stringify([i.collection, i.name, i.keys, i.unique]);

/** After the commit: drops the stage's meta indexes that `wanted` lacks, builds those it adds. */
export async function syncMetaIndexes(
  pool: pg.Pool,
  apiKey: string,
  stage: Stage,
  wanted: MetaIndex[],
  ddl: DdlOptions,
): Promise<void> {
  if (!(await hasDocumentTable(pool))) return;
  const present = await readMetaIndexes(pool, apiKey, stage);
  const want = new Set(wanted.map(indexKey));
  const have = new Set(present.map(indexKey));
  for (const index of present.filter((i) => !want.has(indexKey(i)))) {
    await dropIndex(pool, { game: apiKey, stage, collection: index.collection }, index.name, ddl);
  }
  for (const index of wanted.filter((i) => !have.has(indexKey(i)))) {
    const keys = index.keys.map(([path, dir]) => ({ path, parts: parseFieldPath(path), dir }));
    await createIndex(pool, { game: apiKey, stage, collection: index.collection }, { ...index, keys }, ddl);
  }
}
