// A cluster's replica of the control database (docs/topology.md): the same tables the all-in-one process reads,
// written only by the applier (src/cluster/applier.ts) from the feed's rows (JSON text, turned back into rows by
// json_populate_recordset so that no column list is written here), and the position it has reached.
// Server-level: the rows carry their keys; every call takes the db first.
import type pg from 'pg';
import type { Db } from './scope.js';

/** A game's tables besides its games row, in insertion order (a Live pointer after the snapshot it names). */
export const REPLICA_CHILD_TABLES = [
  'game_configs',
  'config_credentials',
  'admin_snapshots',
  'live_snapshots',
  'game_groups',
  'collaborators',
  'preview_meta_restores',
] as const;
export type ReplicaChildTable = (typeof REPLICA_CHILD_TABLES)[number];

/** The tables replicated row by row, and their keys. */
const KEYED = { accounts: 'username', signing_keys: 'kid', games: 'api_key' } as const;
export type ReplicaKeyedTable = keyof typeof KEYED;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Marks the transaction as the applier's: the change triggers of 0012 skip it (0009's still notify). */
export async function markReplicaTransaction(client: pg.PoolClient): Promise<void> {
  await client.query("SELECT set_config('playbase.replica', 'on', true)");
}

/**
 * Serializes the appliers of one cluster database (each nosql process of the cluster runs one) until the
 * transaction ends: an advisory lock (7404202612), so that two never interleave their deletes and inserts.
 */
export async function lockReplica(client: pg.PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(7404202612)');
}

export async function readReplicaCursor(db: Db): Promise<string | undefined> {
  const { rows } = await db.query<{ cursor: string }>('SELECT cursor FROM replica_cursor');
  return rows[0]?.cursor;
}

/** The stored position and when it was last written (each applied feed answer writes it, even an empty one). */
export async function readReplicaPosition(db: Db): Promise<{ cursor: string; appliedAt: Date } | undefined> {
  const { rows } = await db.query<{ cursor: string; applied_at: Date }>(
    'SELECT cursor, applied_at FROM replica_cursor',
  );
  const row = rows[0];
  return row && { cursor: row.cursor, appliedAt: row.applied_at };
}

export async function writeReplicaCursor(client: pg.PoolClient, cursor: string): Promise<void> {
  await client.query(
    `INSERT INTO replica_cursor (id, cursor, applied_at) VALUES (true, $1, now())
     ON CONFLICT (id) DO UPDATE SET cursor = EXCLUDED.cursor, applied_at = EXCLUDED.applied_at`,
    [cursor],
  );
}

async function columnsOf(client: pg.PoolClient, table: string): Promise<string[]> {
  const { rows } = await client.query<{ attname: string }>(
    `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
     ORDER BY attnum`,
    [table],
  );
  return rows.map((r) => r.attname);
}

/** Inserts or replaces rows (JSON text) of a keyed table. `table` is one of the constants above, never input. */
export async function upsertReplicaRows(
  client: pg.PoolClient,
  table: ReplicaKeyedTable,
  rows: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  const key = KEYED[table];
  const set = (await columnsOf(client, table))
    .filter((c) => c !== key)
    .map((c) => `${quote(c)} = EXCLUDED.${quote(c)}`)
    .join(', ');
  await client.query(
    `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)
     ON CONFLICT (${key}) DO UPDATE SET ${set}`,
    [`[${rows.join(',')}]`],
  );
}

/** Deletes rows of a keyed table by key (tombstones). An account that still owns a game here is kept. */
export async function deleteReplicaRows(
  client: pg.PoolClient,
  table: ReplicaKeyedTable,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  const guard =
    table === 'accounts' ? ' AND NOT EXISTS (SELECT 1 FROM games g WHERE g.owner = accounts.username)' : '';
  await client.query(`DELETE FROM ${table} WHERE ${KEYED[table]} = ANY($1)${guard}`, [keys]);
}

/** Keys of a keyed table not in `keep` (a full sync removes what the control database no longer has). */
export async function selectReplicaKeysNotIn(
  db: Db,
  table: ReplicaKeyedTable,
  keep: readonly string[],
): Promise<string[]> {
  const key = KEYED[table];
  const { rows } = await db.query<{ k: string }>(
    `SELECT ${key} AS k FROM ${table} WHERE NOT (${key} = ANY($1))`,
    [keep],
  );
  return rows.map((r) => r.k);
}

/** Games in (from, to] (open ends when null) that are not in `keep`: a full sync's page removes them. */
export async function selectReplicaGamesInRangeNotIn(
  db: Db,
  from: string | null,
  to: string | null,
  keep: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ api_key: string }>(
    `SELECT api_key FROM games WHERE ($1::text IS NULL OR api_key > $1) AND ($2::text IS NULL OR api_key <= $2)
     AND NOT (api_key = ANY($3))`,
    [from, to, keep],
  );
  return rows.map((r) => r.api_key);
}

/** Replaces every child row of the games with the ones sent (JSON text by table); a Live pointer goes first. */
export async function replaceGameChildRows(
  client: pg.PoolClient,
  apiKeys: readonly string[],
  rows: ReadonlyMap<ReplicaChildTable, readonly string[]>,
): Promise<void> {
  if (apiKeys.length === 0) return;
  for (const table of [...REPLICA_CHILD_TABLES].reverse()) {
    await client.query(`DELETE FROM ${table} WHERE api_key = ANY($1)`, [apiKeys]);
  }
  for (const table of REPLICA_CHILD_TABLES) {
    const sent = rows.get(table) ?? [];
    if (sent.length === 0) continue;
    await client.query(
      `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`,
      [`[${sent.join(',')}]`],
    );
  }
}

/** The cluster a game is on here, or undefined when the replica has no such game. */
export async function selectGameCluster(db: Db, apiKey: string): Promise<string | undefined> {
  const { rows } = await db.query<{ cluster: string }>('SELECT cluster FROM games WHERE api_key = $1', [
    apiKey,
  ]);
  return rows[0]?.cluster;
}

/** Where a game's meta collections stand in the replica: the Live pointer's publish count, the last restore's. */
export interface MetaMarks {
  liveSeq: string | null;
  restoreSeq: string | null;
}

/** The meta marks of the games (absent games: nulls); read before and after the child rows are replaced. */
export async function selectMetaMarks(db: Db, apiKeys: readonly string[]): Promise<Map<string, MetaMarks>> {
  const { rows } = await db.query<{ api_key: string; live_seq: string | null; restore_seq: string | null }>(
    `SELECT k AS api_key,
       (SELECT publish_seq::text FROM live_snapshots l WHERE l.api_key = k AND l.kind = 'game') AS live_seq,
       (SELECT seq::text FROM preview_meta_restores r WHERE r.api_key = k) AS restore_seq
     FROM unnest($1::text[]) AS k`,
    [apiKeys],
  );
  return new Map(rows.map((r) => [r.api_key, { liveSeq: r.live_seq, restoreSeq: r.restore_seq }]));
}

/** The meta collections of the snapshot the game's Live stage runs (null: Live runs nothing). */
export async function selectLiveMeta(db: Db, apiKey: string): Promise<unknown> {
  const { rows } = await db.query<{ meta: unknown }>(
    `SELECT s.meta FROM live_snapshots l JOIN admin_snapshots s ON s.id = l.snapshot_id
     WHERE l.api_key = $1 AND l.kind = 'game'`,
    [apiKey],
  );
  return rows[0]?.meta ?? null;
}

/** The Preview meta collections the game's last revert or copy restored (null: none). */
export async function selectRestoredPreviewMeta(db: Db, apiKey: string): Promise<unknown> {
  const { rows } = await db.query<{ meta: unknown }>(
    'SELECT meta FROM preview_meta_restores WHERE api_key = $1',
    [apiKey],
  );
  return rows[0]?.meta ?? null;
}
