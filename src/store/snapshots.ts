// The admin_snapshots table (frozen copies of a game's configuration and meta collections, or of its Manage
// section) and live_snapshots (which snapshot of each kind the Live stage runs, with its publish_seq). What a
// snapshot holds and when one may be written are the admin room's (src/admin/snapshots.ts, publish.ts).
import type { Db } from './scope.js';

export type SnapshotKind = 'game' | 'screens';

export interface SnapshotRow {
  id: string;
  api_key: string;
  kind: SnapshotKind;
  created_at: Date;
  created_by: string;
  description: string;
  config: unknown;
  meta: unknown;
  secrets: unknown;
  published: boolean;
  published_at: Date | null;
}

export type SummaryRow = Pick<SnapshotRow, 'id' | 'created_at' | 'created_by' | 'description' | 'published'>;

const SUMMARY_COLUMNS = 'id, created_at, created_by, description, published';

export interface NewSnapshot {
  id: string;
  kind: SnapshotKind;
  createdAt: Date;
  createdBy: string;
  description: string;
  config: unknown;
  meta: unknown;
  /** Undefined: none (stored as NULL). */
  secrets: unknown;
}

/** Stores a snapshot (kept as json, so its key order is the one it was captured in). */
export async function insertSnapshot(db: Db, apiKey: string, s: NewSnapshot): Promise<SummaryRow> {
  const { rows } = await db.query<SummaryRow>(
    `INSERT INTO admin_snapshots (id, api_key, kind, created_at, created_by, description, config, meta, secrets)
     VALUES ($1, $2, $3, $4, $5, $6, $7::json, $8::json, $9::json) RETURNING ${SUMMARY_COLUMNS}`,
    [
      s.id,
      apiKey,
      s.kind,
      s.createdAt,
      s.createdBy,
      s.description,
      JSON.stringify(s.config),
      JSON.stringify(s.meta),
      s.secrets === undefined ? null : JSON.stringify(s.secrets),
    ],
  );
  return rows[0] as SummaryRow;
}

/** One page of the game's snapshots of that kind, newest first. */
export async function selectSnapshotPage(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
  limit: number,
  offset: number,
): Promise<SummaryRow[]> {
  const { rows } = await db.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM admin_snapshots WHERE api_key = $1 AND kind = $2
     ORDER BY created_at DESC, seq DESC LIMIT $3 OFFSET $4`,
    [apiKey, kind, limit, offset],
  );
  return rows;
}

/** The whole snapshot, or undefined; `lock` holds its row until the transaction ends. */
export async function selectSnapshot(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  lock = false,
): Promise<SnapshotRow | undefined> {
  const { rows } = await db.query<SnapshotRow>(
    `SELECT * FROM admin_snapshots WHERE api_key = $1 AND kind = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
    [apiKey, kind, id],
  );
  return rows[0];
}

export async function deleteSnapshotRow(db: Db, apiKey: string, id: string): Promise<void> {
  await db.query('DELETE FROM admin_snapshots WHERE api_key = $1 AND id = $2', [apiKey, id]);
}

/** Puts the snapshot in the publish history at `publishedAt`, or takes it out with null. */
export async function setPublished(
  db: Db,
  apiKey: string,
  id: string,
  publishedAt: Date | null,
): Promise<void> {
  await db.query(
    'UPDATE admin_snapshots SET published = $3, published_at = $4 WHERE api_key = $1 AND id = $2',
    [apiKey, id, publishedAt !== null, publishedAt],
  );
}

/** The most recently published snapshot of that kind still in the publish history, or undefined. */
export async function selectLatestPublished(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
): Promise<SnapshotRow | undefined> {
  const { rows } = await db.query<SnapshotRow>(
    `SELECT * FROM admin_snapshots WHERE api_key = $1 AND kind = $2 AND published
     ORDER BY published_at DESC, seq DESC LIMIT 1`,
    [apiKey, kind],
  );
  return rows[0];
}

/** The snapshot the Live stage runs, or null before the first publish (and after the last unpublish). */
export async function selectLiveSnapshotId(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
): Promise<string | null> {
  const { rows } = await db.query<{ snapshot_id: string | null }>(
    'SELECT snapshot_id FROM live_snapshots WHERE api_key = $1 AND kind = $2',
    [apiKey, kind],
  );
  return rows[0]?.snapshot_id ?? null;
}

/**
 * Points Live at `snapshotId` (null: nothing). One UPDATE of one row, so a Live reader joining the pointer to its
 * snapshot sees either the old configuration or the new one; publish_seq is the Live configuration version.
 */
export async function pointLiveAt(
  db: Db,
  apiKey: string,
  kind: SnapshotKind,
  snapshotId: string | null,
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO live_snapshots (api_key, kind, snapshot_id, published_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (api_key, kind) DO UPDATE
       SET snapshot_id = EXCLUDED.snapshot_id, published_at = EXCLUDED.published_at,
           publish_seq = live_snapshots.publish_seq + 1`,
    [apiKey, kind, snapshotId, at],
  );
}

/**
 * The configuration Live runs and its publish_seq; undefined when Live runs nothing or the game is gone. One
 * statement: the pointer and the snapshot it names are read together, so a publish is seen whole or not at all.
 */
export async function readLiveConfig(
  db: Db,
  apiKey: string,
): Promise<{ publishSeq: string; config: unknown } | undefined> {
  const { rows } = await db.query<{ publish_seq: string; config: unknown }>(
    `SELECT l.publish_seq, s.config FROM live_snapshots l
       JOIN admin_snapshots s ON s.id = l.snapshot_id
       JOIN games g ON g.api_key = l.api_key AND g.deleted_at IS NULL
     WHERE l.api_key = $1 AND l.kind = 'game'`,
    [apiKey],
  );
  const row = rows[0];
  return row && { publishSeq: row.publish_seq, config: row.config };
}

/** Only the publish_seq of readLiveConfig, for cheap polling; undefined when Live runs nothing. */
export async function readLivePublishSeq(db: Db, apiKey: string): Promise<string | undefined> {
  const { rows } = await db.query<{ publish_seq: string; snapshot_id: string | null }>(
    `SELECT l.publish_seq, l.snapshot_id FROM live_snapshots l JOIN games g ON g.api_key = l.api_key
     WHERE l.api_key = $1 AND l.kind = 'game' AND g.deleted_at IS NULL`,
    [apiKey],
  );
  const row = rows[0];
  return row?.snapshot_id ? row.publish_seq : undefined;
}

/** What the game snapshot Live runs keeps beside its document (secret hashes...), or undefined. */
export async function readLiveSecrets(db: Db, apiKey: string): Promise<unknown> {
  const { rows } = await db.query<{ secrets: unknown }>(
    `SELECT s.secrets FROM live_snapshots l JOIN admin_snapshots s ON s.id = l.snapshot_id
     WHERE l.api_key = $1 AND l.kind = 'game'`,
    [apiKey],
  );
  return rows[0]?.secrets ?? undefined;
}

/**
 * Records the Preview meta collections a revert or a copy restored into a game whose documents live on a runtime
 * cluster (migration 0013): its applier writes them there. Each restore grows seq.
 */
export async function recordPreviewMetaRestore(
  db: Db,
  apiKey: string,
  meta: unknown,
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO preview_meta_restores (api_key, seq, meta, at) VALUES ($1, 1, $2::json, $3)
     ON CONFLICT (api_key) DO UPDATE
       SET seq = preview_meta_restores.seq + 1, meta = EXCLUDED.meta, at = EXCLUDED.at`,
    [apiKey, JSON.stringify(meta), at],
  );
}
