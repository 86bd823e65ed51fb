// Snapshots of a game (its configuration and meta collections) or of its Manage section: create, list, delete, revert.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { authErrors } from '../auth/errors.js';
import { withScriptDigests } from '../config/config-audit.js';
import { type Db, recordAudit } from '../store/audit.js';
import { withTransaction } from '../store/db.js';
import { lockGameRow as lockGame } from '../store/games.js';
import {
  deleteSnapshotRow,
  insertSnapshot,
  type SnapshotKind,
  type SnapshotRow,
  type SummaryRow,
  selectLiveSnapshotId,
  selectSnapshot,
  selectSnapshotPage,
} from '../store/snapshots.js';
import { adminErrors } from './errors.js';
import type { WriteMeta } from './manage.js';

export type { SnapshotKind, SnapshotRow };

/** What a snapshot freezes: `config` is the configuration document (or the Manage section), `meta` its rows. */
export interface SnapshotContent {
  config: unknown;
  meta: unknown;
  /** Never shown: what restoring the configuration needs beyond the document (secret hashes, sealed keys). */
  secrets?: unknown;
  /** The game the content was taken from (sealed values are bound to it). */
  origin?: string | undefined;
}

/** Which parts of a snapshot a restore writes (revert: both; copy: as the include flags say). */
export interface RestoreParts {
  config: boolean;
  meta: boolean;
}

/** Work that cannot join the transaction (index DDL); run once it has committed, failures logged by the adapter. */
export type AfterCommit = () => Promise<void>;

/** How one kind of snapshot reads and writes the game's working copy; both run inside the caller's transaction. */
export interface ContentAdapter {
  capture(client: pg.PoolClient, apiKey: string): Promise<SnapshotContent>;
  restore(
    client: pg.PoolClient,
    apiKey: string,
    content: SnapshotContent,
    parts: RestoreParts,
    at: number,
  ): Promise<AfterCommit | undefined>;
}

/** Runs `work` in a transaction, then whatever it queued for after the commit. */
export async function withAfterCommit<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, after: (task: AfterCommit | undefined) => void) => Promise<T>,
): Promise<T> {
  const tasks: AfterCommit[] = [];
  const result = await withTransaction(pool, (client) =>
    work(client, (task) => {
      if (task) tasks.push(task);
    }),
  );
  for (const task of tasks) await task();
  return result;
}

export interface SnapshotSummary {
  id: string;
  created: string;
  createdBy: string;
  description: string;
  published: boolean;
}

/** A stored snapshot as content to restore. */
export function contentOf(row: SnapshotRow): SnapshotContent {
  return { config: row.config, meta: row.meta, secrets: row.secrets, origin: row.api_key };
}

export const SNAPSHOT_PAGE_SIZE = 20;

export function toSummary(r: SummaryRow) {
  return {
    id: r.id,
    created: r.created_at.toISOString(),
    createdBy: r.created_by,
    description: r.description,
    published: r.published,
  };
}

/** 24 hex digits, like the ObjectIds the original platform used for snapshot ids. */
function newSnapshotId(): string {
  return randomBytes(12).toString('hex');
}

/** Locks the game's row (configuration writers take the same lock), 404 when it is gone. */
export async function lockGameRow(client: pg.PoolClient, apiKey: string): Promise<void> {
  if (!(await lockGame(client, apiKey))) throw authErrors.gameNotFound(apiKey);
}

export function auditSnapshot(
  client: pg.PoolClient,
  apiKey: string,
  action: string,
  target: string,
  meta: WriteMeta,
  before?: unknown,
  after?: unknown,
): Promise<void> {
  return recordAudit(client, {
    apiKey,
    actor: meta.actor,
    credential: meta.credential,
    requestId: meta.requestId,
    action,
    target,
    // A configuration's scripts by size and SHA-256, as configuration writes record them.
    before: withScriptDigests(before),
    after: withScriptDigests(after),
    at: meta.at,
  });
}

/** Saves the working copy as a new snapshot; inside the caller's transaction (the game row already locked). */
export async function saveSnapshot(
  client: pg.PoolClient,
  adapter: ContentAdapter,
  apiKey: string,
  kind: SnapshotKind,
  description: string,
  meta: WriteMeta,
): Promise<SnapshotSummary> {
  const content = await adapter.capture(client, apiKey);
  const row = await insertSnapshot(client, apiKey, {
    id: newSnapshotId(),
    kind,
    createdAt: new Date(meta.at),
    createdBy: meta.actor,
    description,
    config: content.config,
    meta: content.meta,
    secrets: content.secrets,
  });
  return toSummary(row);
}

export async function createSnapshot(
  pool: pg.Pool,
  adapter: ContentAdapter,
  apiKey: string,
  kind: SnapshotKind,
  description: string,
  meta: WriteMeta,
): Promise<SnapshotSummary> {
  return withTransaction(pool, async (client) => {
    await lockGameRow(client, apiKey);
    const summary = await saveSnapshot(client, adapter, apiKey, kind, description, meta);
    await auditSnapshot(client, apiKey, `${actionArea(kind)}.create`, summary.id, meta, undefined, summary);
    return summary;
  });
}

/** snapshot.* for game snapshots, screenSnapshot.* for those of the Manage section. */
export function actionArea(kind: SnapshotKind): string {
  return kind === 'game' ? 'snapshot' : 'screenSnapshot';
}

/** One page (from 1) of the game's snapshots, newest first. */
export async function listSnapshots(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
  page: number,
  pageSize: number,
): Promise<SnapshotSummary[]> {
  return (await selectSnapshotPage(db, apiKey, kind, pageSize, (page - 1) * pageSize)).map(toSummary);
}

export async function readSnapshot(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  lock = false,
): Promise<SnapshotRow> {
  const row = await selectSnapshot(db, apiKey, kind, id, lock);
  if (!row) throw adminErrors.snapshotNotFound(id);
  return row;
}

export async function deleteSnapshot(
  pool: pg.Pool,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  meta: WriteMeta,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await lockGameRow(client, apiKey);
    const row = await readSnapshot(client, apiKey, kind, id, true);
    if ((await liveSnapshotIdOf(client, apiKey, kind)) === id) throw adminErrors.snapshotIsLive(id);
    await deleteSnapshotRow(client, apiKey, id);
    await auditSnapshot(client, apiKey, `${actionArea(kind)}.delete`, id, meta, toSummary(row), undefined);
  });
}

/**
 * Replaces the working copy with the snapshot's content, after saving the working copy as "AUTOSAVE - Pre
 * Revert"; one transaction, so a failure leaves both the working copy and the snapshot list as they were.
 */
export async function revertToSnapshot(
  pool: pg.Pool,
  adapter: ContentAdapter,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  meta: WriteMeta,
): Promise<{ autosave: SnapshotSummary }> {
  return withAfterCommit(pool, async (client, after) => {
    await lockGameRow(client, apiKey);
    const target = await readSnapshot(client, apiKey, kind, id);
    const autosave = await saveSnapshot(client, adapter, apiKey, kind, 'AUTOSAVE - Pre Revert', meta);
    const before = await adapter.capture(client, apiKey);
    after(await adapter.restore(client, apiKey, contentOf(target), { config: true, meta: true }, meta.at));
    await auditSnapshot(client, apiKey, `${actionArea(kind)}.revert`, id, meta, before.config, target.config);
    return { autosave };
  });
}

/** The snapshot the Live stage runs, or null before the first publish (and after the last unpublish). */
export function liveSnapshotIdOf(db: Db, apiKey: string, kind: SnapshotKind): Promise<string | null> {
  return selectLiveSnapshotId(db, apiKey, kind);
}
