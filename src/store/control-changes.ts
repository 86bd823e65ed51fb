// The control database's side of the cluster feed (migration 0012): the change log its triggers write, and the
// replicated rows of the entities it names, read as JSON text (row_to_json keeps a json column's key order, which
// a sort specification's meaning depends on). Server-level: no game scope for the log; game rows take the keys.
import type pg from 'pg';
import { withTransaction } from './db.js';
import type { Db } from './scope.js';

export type ChangedKind = 'game' | 'account' | 'key';

export interface ChangedEntity {
  entity: ChangedKind;
  key: string;
  /** The entity's newest change number (decimal text: bigint). */
  last: string;
}

/** What the feed's snapshot sees of the log: its lowest and highest change, and the transactions in flight. */
export interface FeedSnapshot {
  min: string | null;
  max: string | null;
  /** xid8 values as decimal text: their changes, invisible now, may land under lower numbers than max. */
  inFlight: string[];
}

/** Runs `fn` in a read-only REPEATABLE READ transaction: every read in it sees one snapshot. */
export function withFeedSnapshot<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/** Read first in withFeedSnapshot: every later read of it sees the same snapshot. */
export async function readFeedSnapshot(db: Db): Promise<FeedSnapshot> {
  const { rows } = await db.query<FeedSnapshot & { in_flight: string[] }>(
    `SELECT (SELECT min(seq)::text FROM control_changes) AS min, (SELECT max(seq)::text FROM control_changes) AS max,
            ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) AS x) AS in_flight`,
  );
  const row = rows[0];
  return { min: row?.min ?? null, max: row?.max ?? null, inFlight: row?.in_flight ?? [] };
}

/**
 * Entities changed after `seq`, or by one of the `inFlight` transactions (which were not visible then), oldest
 * newest change first, at most `limit`.
 */
export async function selectChangedEntities(
  db: Db,
  seq: string,
  inFlight: readonly string[],
  limit: number,
): Promise<ChangedEntity[]> {
  const { rows } = await db.query<ChangedEntity>(
    `SELECT entity, key, max(seq)::text AS last FROM control_changes
     WHERE seq > $1::bigint OR tx = ANY($2::xid8[])
     GROUP BY entity, key ORDER BY max(seq) LIMIT $3`,
    [seq, inFlight, limit],
  );
  return rows;
}

/** The newest change number (the feed's polling fallback when notifications are not live). */
export async function selectLastChange(db: Db): Promise<string | null> {
  const { rows } = await db.query<{ max: string | null }>(
    'SELECT max(seq)::text AS max FROM control_changes',
  );
  return rows[0]?.max ?? null;
}

/** Deletes changes older than `before`, always keeping the newest (the feed tells a pruned cursor by it). */
export async function pruneControlChanges(db: Db, before: Date): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM control_changes WHERE at < $1 AND seq < (SELECT max(seq) FROM control_changes)`,
    [before],
  );
  return rowCount ?? 0;
}

export interface KeyedRow {
  key: string;
  /** The row as JSON text. */
  row: string;
}

/** Accounts (all when `usernames` is null), their password hash replaced by one no password matches. */
export async function selectReplicaAccounts(
  db: Db,
  usernames: readonly string[] | null,
): Promise<KeyedRow[]> {
  const { rows } = await db.query<KeyedRow>(
    `SELECT username AS key, (to_jsonb(a) || '{"password_hash": "!"}'::jsonb)::text AS row
     FROM accounts a WHERE $1::text[] IS NULL OR username = ANY($1) ORDER BY username`,
    [usernames],
  );
  return rows;
}

/** Signing keys (all when `kids` is null) with their public half only: the private key never leaves. */
export async function selectReplicaKeys(db: Db, kids: readonly string[] | null): Promise<KeyedRow[]> {
  const { rows } = await db.query<KeyedRow>(
    `SELECT kid AS key, (to_jsonb(k) || '{"private_jwk": {}}'::jsonb)::text AS row
     FROM signing_keys k WHERE $1::text[] IS NULL OR kid = ANY($1) ORDER BY kid`,
    [kids],
  );
  return rows;
}

/** Api keys of the games after `afterKey` (null: from the first), in order, at most `limit` (a full sync's page). */
export async function selectGameKeysPage(db: Db, afterKey: string | null, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ api_key: string }>(
    'SELECT api_key FROM games WHERE $1::text IS NULL OR api_key > $1 ORDER BY api_key LIMIT $2',
    [afterKey, limit],
  );
  return rows.map((r) => r.api_key);
}

export interface GameRow extends KeyedRow {
  cluster: string;
}

export async function selectReplicaGames(db: Db, apiKeys: readonly string[]): Promise<GameRow[]> {
  const { rows } = await db.query<GameRow>(
    'SELECT api_key AS key, cluster, row_to_json(g)::text AS row FROM games g WHERE api_key = ANY($1)',
    [apiKeys],
  );
  return rows;
}

/** Owners and collaborators of the games: their accounts travel with the games (foreign keys on the cluster). */
export async function selectGameAccountNames(db: Db, apiKeys: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ username: string }>(
    `SELECT owner AS username FROM games WHERE api_key = ANY($1)
     UNION SELECT email FROM collaborators WHERE api_key = ANY($1)`,
    [apiKeys],
  );
  return rows.map((r) => r.username);
}

export interface ChildRow {
  tbl: string;
  api_key: string;
  row: string;
}

/**
 * A Live snapshot's row as a cluster gets it: its secrets keep only the runtime credentials' hashes, never the
 * sealed push credentials (a cluster sends no push). Columns are listed so that a json column keeps its key order;
 * test/cluster/feed.test.ts checks the list against the table.
 */
const SNAPSHOT_COLUMNS = `s.id, s.api_key, s.kind, s.seq, s.created_at, s.created_by, s.description, s.config, s.meta,
  CASE WHEN s.secrets IS NULL THEN NULL ELSE json_build_object('credentialHashes', s.secrets -> 'credentialHashes')
  END AS secrets, s.published, s.published_at`;

/**
 * A game's replicated child rows: configuration, credentials, Live pointers and their snapshots, groups,
 * collaborators, and the Preview meta collections its last revert or copy restored.
 */
export async function selectGameChildRows(db: Db, apiKeys: readonly string[]): Promise<ChildRow[]> {
  const { rows } = await db.query<ChildRow>(
    `SELECT 'game_configs' AS tbl, api_key, row_to_json(t)::text AS row FROM game_configs t WHERE api_key = ANY($1)
     UNION ALL SELECT 'config_credentials', api_key, row_to_json(t)::text FROM config_credentials t
       WHERE api_key = ANY($1)
     UNION ALL SELECT 'admin_snapshots', s.api_key, row_to_json(x)::text FROM admin_snapshots s
       JOIN live_snapshots l ON l.snapshot_id = s.id
       CROSS JOIN LATERAL (SELECT ${SNAPSHOT_COLUMNS}) x WHERE l.api_key = ANY($1)
     UNION ALL SELECT 'live_snapshots', api_key, row_to_json(t)::text FROM live_snapshots t WHERE api_key = ANY($1)
     UNION ALL SELECT 'game_groups', api_key, row_to_json(t)::text FROM game_groups t WHERE api_key = ANY($1)
     UNION ALL SELECT 'collaborators', api_key, row_to_json(t)::text FROM collaborators t WHERE api_key = ANY($1)
     UNION ALL SELECT 'preview_meta_restores', api_key, row_to_json(t)::text FROM preview_meta_restores t
       WHERE api_key = ANY($1)`,
    [apiKeys],
  );
  return rows;
}
