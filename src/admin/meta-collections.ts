// The meta collections (meta.*) of a game's stage, read and replaced as a whole for snapshots and publishing.
import type pg from 'pg';
import { createIndex, type DdlOptions, dropIndex } from '../nosql/indexes.js';
import { parseFieldPath } from '../query/field-path.js';
import { metaCollectionNames, replaceMetaCollections } from '../store/collections.js';
import {
  hasDocumentTable as hasDocuments,
  readMetaDocuments,
  replaceMetaDocuments,
} from '../store/documents.js';
import { metaIndexRows } from '../store/indexes.js';
import type { Db, Stage } from '../store/scope.js';

export type { Stage };

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
  /** Whole stored rows without game and stage, so the copy keeps the stored form exactly. */
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
export const hasDocumentTable = (db: Db): Promise<boolean> => hasDocuments(db);

export async function readMeta(db: Db, apiKey: string, stage: Stage): Promise<MetaContent> {
  if (!(await hasDocumentTable(db))) return EMPTY_META;
  const scope = { game: apiKey, stage };
  return {
    collections: await metaCollectionNames(db, scope),
    documents: await readMetaDocuments(db, scope),
    indexes: await metaIndexRows(db, scope),
  };
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
  const scope = { game: apiKey, stage };
  await replaceMetaCollections(client, scope, meta.collections, new Date(at));
  await replaceMetaDocuments(client, scope, meta.documents);
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
  const present = await metaIndexRows(pool, { game: apiKey, stage });
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
