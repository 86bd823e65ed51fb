// Writing documents: insert, save (upsert by _id) and remove, each one atomic statement of the store.
import type { FilterNode } from '../query/filter.js';
import { type Doc, idKey } from '../query/values.js';
import * as store from '../store/documents.js';
import type { Db, Scope } from './scope.js';
import { storedDocument } from './wire.js';

/**
 * Inserts documents that already carry their _id, all or none: a duplicate _id (also within the list) or
 * unique key fails the whole statement with SQLSTATE 23505.
 */
export async function insertDocuments(db: Db, scope: Scope, docs: Doc[]): Promise<void> {
  await store.insertDocuments(db, scope, {
    ids: docs.map((d) => idKey(d._id!)),
    texts: docs.map(storedDocument),
  });
}

/** Inserts the document, or replaces the one with the same _id; answers true when it replaced one. */
export function saveDocument(db: Db, scope: Scope, doc: Doc): Promise<boolean> {
  return store.saveDocument(db, scope, idKey(doc._id!), storedDocument(doc));
}

export function removeDocuments(db: Db, scope: Scope, filter: FilterNode): Promise<number> {
  return store.removeDocuments(db, scope, filter);
}
