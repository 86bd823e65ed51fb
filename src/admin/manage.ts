// Admin screens of the Manage section: screens, snippets and queries of a game, by short code.
import type pg from 'pg';
import { isPlaybaseError } from '../errors.js';
import { parseFilter } from '../query/filter.js';
import { parseProjection } from '../query/projection.js';
import { parseSort } from '../query/sort.js';
import { type Db, recordAudit } from '../store/audit.js';
import { withTransaction } from '../store/db.js';
import {
  deleteGameItems,
  deleteItemRow,
  insertItem,
  type ManageKind,
  selectItem,
  selectItems,
  updateItemDoc,
} from '../store/manage-items.js';
import { adminErrors } from './errors.js';

export type { ManageKind };

// Type aliases (not interfaces): they fit the route schemas' index signatures.
export type Screen = {
  shortCode: string;
  name: string;
  template: string;
  groups: string[];
};

export type Snippet = Screen & {
  script: string;
  scriptData: Record<string, unknown>;
};

/** A saved Data Explorer query an admin screen can run: a collection, a filter, and how to show the result. */
export type ManageQuery = {
  shortCode: string;
  name: string;
  collection: string;
  query: Record<string, unknown>;
  fields: Record<string, unknown>;
  sort: Record<string, unknown>;
  limit: number;
  groups: string[];
};

export type ManageItem = Screen | Snippet | ManageQuery;

/** Who writes, for the audit entry written in the same transaction. */
export interface WriteMeta {
  actor: string;
  credential?: string | undefined;
  requestId?: string | undefined;
  at: number;
}

const KIND_NAMES: Record<ManageKind, string> = {
  screen: 'screen',
  snippet: 'snippet',
  query: 'query',
};

/** Fills the optional fields so that every stored item has its whole shape. */
function normalizeItem(kind: ManageKind, input: Record<string, unknown>): ManageItem {
  const base = {
    shortCode: String(input.shortCode),
    name: String(input.name ?? input.shortCode),
    groups: [...new Set((input.groups as string[] | undefined) ?? [])],
  };
  if (kind === 'query') {
    const q: ManageQuery = {
      ...base,
      collection: String(input.collection),
      query: (input.query as Record<string, unknown> | undefined) ?? {},
      fields: (input.fields as Record<string, unknown> | undefined) ?? {},
      sort: (input.sort as Record<string, unknown> | undefined) ?? {},
      limit: (input.limit as number | undefined) ?? 100,
    };
    checkQuery(q);
    return q;
  }
  const screen: Screen = { ...base, template: String(input.template ?? '') };
  if (kind === 'screen') return screen;
  return {
    ...screen,
    script: String(input.script ?? ''),
    scriptData: (input.scriptData as Record<string, unknown> | undefined) ?? {},
  };
}

/** A query is checked as the data server would check it, so a saved query never fails for its shape later. */
function checkQuery(q: ManageQuery): void {
  try {
    parseFilter(q.query);
    parseProjection(q.fields);
    parseSort(q.sort);
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) throw adminErrors.manageQueryInvalid(e.message);
    throw e;
  }
}

export async function listItems(db: Db, apiKey: string, kind: ManageKind): Promise<ManageItem[]> {
  return selectItems<ManageItem>(db, { game: apiKey, kind });
}

export async function getItem(
  db: Db,
  apiKey: string,
  kind: ManageKind,
  shortCode: string,
): Promise<ManageItem> {
  const item = await selectItem<ManageItem>(db, { game: apiKey, kind }, shortCode);
  if (!item) throw adminErrors.manageItemNotFound(KIND_NAMES[kind], shortCode);
  return item;
}

export async function createItem(
  pool: pg.Pool,
  apiKey: string,
  kind: ManageKind,
  input: Record<string, unknown>,
  meta: WriteMeta,
): Promise<ManageItem> {
  const item = normalizeItem(kind, input);
  return withTransaction(pool, async (client) => {
    const added = await insertItem(client, { game: apiKey, kind }, item.shortCode, item, new Date(meta.at));
    if (!added) throw adminErrors.manageItemExists(KIND_NAMES[kind], item.shortCode);
    await auditItem(client, apiKey, kind, 'create', item.shortCode, meta, undefined, item);
    return item;
  });
}

export async function updateItem(
  pool: pg.Pool,
  apiKey: string,
  kind: ManageKind,
  shortCode: string,
  input: Record<string, unknown>,
  meta: WriteMeta,
): Promise<ManageItem> {
  if (input.shortCode !== undefined && input.shortCode !== shortCode) {
    throw adminErrors.manageShortCodeMismatch(shortCode, String(input.shortCode));
  }
  const item = normalizeItem(kind, { ...input, shortCode });
  return withTransaction(pool, async (client) => {
    const before = await lockItem(client, apiKey, kind, shortCode);
    await updateItemDoc(client, { game: apiKey, kind }, shortCode, item, new Date(meta.at));
    await auditItem(client, apiKey, kind, 'update', shortCode, meta, before, item);
    return item;
  });
}

export async function deleteItem(
  pool: pg.Pool,
  apiKey: string,
  kind: ManageKind,
  shortCode: string,
  meta: WriteMeta,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    const before = await lockItem(client, apiKey, kind, shortCode);
    await deleteItemRow(client, { game: apiKey, kind }, shortCode);
    await auditItem(client, apiKey, kind, 'delete', shortCode, meta, before, undefined);
  });
}

async function lockItem(
  client: pg.PoolClient,
  apiKey: string,
  kind: ManageKind,
  shortCode: string,
): Promise<ManageItem> {
  const item = await selectItem<ManageItem>(client, { game: apiKey, kind }, shortCode, true);
  if (!item) throw adminErrors.manageItemNotFound(KIND_NAMES[kind], shortCode);
  return item;
}

function auditItem(
  client: pg.PoolClient,
  apiKey: string,
  kind: ManageKind,
  verb: string,
  shortCode: string,
  meta: WriteMeta,
  before: ManageItem | undefined,
  after: ManageItem | undefined,
): Promise<void> {
  return recordAudit(client, {
    apiKey,
    actor: meta.actor,
    credential: meta.credential,
    requestId: meta.requestId,
    action: `manage.${kind}.${verb}`,
    target: shortCode,
    before,
    after,
    at: meta.at,
  });
}

/** The whole Manage section of a game, as a screen snapshot holds it. */
export interface ManageContent {
  screens: Screen[];
  snippets: Snippet[];
  queries: ManageQuery[];
}

export async function loadManageContent(db: Db, apiKey: string): Promise<ManageContent> {
  return {
    screens: (await listItems(db, apiKey, 'screen')) as Screen[],
    snippets: (await listItems(db, apiKey, 'snippet')) as Snippet[],
    queries: (await listItems(db, apiKey, 'query')) as ManageQuery[],
  };
}

/** Replaces the whole Manage section of a game (revert, copy); run it inside the caller's transaction. */
export async function replaceManageContent(
  client: pg.PoolClient,
  apiKey: string,
  content: ManageContent,
  at: number,
): Promise<void> {
  await deleteGameItems(client, apiKey);
  const rows: [ManageKind, ManageItem[]][] = [
    ['screen', content.screens],
    ['snippet', content.snippets],
    ['query', content.queries],
  ];
  for (const [kind, items] of rows) {
    for (const item of items) {
      await insertItem(client, { game: apiKey, kind }, item.shortCode, item, new Date(at), false);
    }
  }
}
