// The manage_items table: a game's Manage section (admin screens, snippets and saved queries), one JSON document
// per kind and short code. Shapes and checks are the admin room's (src/admin/manage.ts).
import type { Db } from './scope.js';

export type ManageKind = 'screen' | 'snippet' | 'query';

/** One kind of item of one game: the scope of every call here. */
export interface ManageScope {
  game: string;
  kind: ManageKind;
}

/** The items' documents, by short code. */
export async function selectItems<T>(db: Db, scope: ManageScope): Promise<T[]> {
  const { rows } = await db.query<{ doc: T }>(
    'SELECT doc FROM manage_items WHERE api_key = $1 AND kind = $2 ORDER BY short_code',
    [scope.game, scope.kind],
  );
  return rows.map((r) => r.doc);
}

/** The item's document, or undefined; `lock` holds its row until the transaction ends. */
export async function selectItem<T>(
  db: Db,
  scope: ManageScope,
  shortCode: string,
  lock = false,
): Promise<T | undefined> {
  const { rows } = await db.query<{ doc: T }>(
    `SELECT doc FROM manage_items WHERE api_key = $1 AND kind = $2 AND short_code = $3${lock ? ' FOR UPDATE' : ''}`,
    [scope.game, scope.kind, shortCode],
  );
  return rows[0]?.doc;
}

/** Adds the item; false when one of that short code exists already (`ifAbsent`), else a clash throws. */
export async function insertItem(
  db: Db,
  scope: ManageScope,
  shortCode: string,
  doc: unknown,
  at: Date,
  ifAbsent = true,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO manage_items (api_key, kind, short_code, doc, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)${ifAbsent ? ' ON CONFLICT DO NOTHING' : ''}`,
    [scope.game, scope.kind, shortCode, JSON.stringify(doc), at],
  );
  return Boolean(rowCount);
}

export async function updateItemDoc(
  db: Db,
  scope: ManageScope,
  shortCode: string,
  doc: unknown,
  at: Date,
): Promise<void> {
  await db.query(
    'UPDATE manage_items SET doc = $4, updated_at = $5 WHERE api_key = $1 AND kind = $2 AND short_code = $3',
    [scope.game, scope.kind, shortCode, JSON.stringify(doc), at],
  );
}

export async function deleteItemRow(db: Db, scope: ManageScope, shortCode: string): Promise<void> {
  await db.query('DELETE FROM manage_items WHERE api_key = $1 AND kind = $2 AND short_code = $3', [
    scope.game,
    scope.kind,
    shortCode,
  ]);
}

/** Deletes every item of every kind of the game (a whole Manage section is about to be written). */
export async function deleteGameItems(db: Db, apiKey: string): Promise<void> {
  await db.query('DELETE FROM manage_items WHERE api_key = $1', [apiKey]);
}
