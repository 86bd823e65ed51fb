// Publishing: which snapshot the Live stage runs. One transaction moves the pointer and the Live meta collections.
import type pg from 'pg';
import { adminErrors } from './errors.js';
import type { WriteMeta } from './manage.js';
import {
  type AfterCommit,
  actionArea,
  auditSnapshot,
  type ContentAdapter,
  contentOf,
  liveSnapshotIdOf,
  lockGameRow,
  readSnapshot,
  type SnapshotContent,
  type SnapshotKind,
  type SnapshotRow,
  type SnapshotSummary,
  toSummary,
  withAfterCommit,
} from './snapshots.js';

/** What going Live does beyond moving the pointer (the game's meta collections); null: Live runs nothing. */
export type GoLive = (
  client: pg.PoolClient,
  apiKey: string,
  content: SnapshotContent | null,
  at: number,
) => Promise<AfterCommit | undefined>;

export interface PublishAdapter extends ContentAdapter {
  goLive?: GoLive | undefined;
}

/**
 * Points Live at `snapshotId` (null: nothing). One UPDATE of one row, so a Live reader joining the pointer to its
 * snapshot sees either the old configuration or the new one; publish_seq is the Live configuration version.
 */
async function pointLiveAt(
  client: pg.PoolClient,
  apiKey: string,
  kind: SnapshotKind,
  snapshotId: string | null,
  at: number,
): Promise<void> {
  await client.query(
    `INSERT INTO live_snapshots (api_key, kind, snapshot_id, published_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (api_key, kind) DO UPDATE
       SET snapshot_id = EXCLUDED.snapshot_id, published_at = EXCLUDED.published_at,
           publish_seq = live_snapshots.publish_seq + 1`,
    [apiKey, kind, snapshotId, new Date(at)],
  );
}

export async function publishSnapshot(
  pool: pg.Pool,
  adapter: PublishAdapter,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  meta: WriteMeta,
): Promise<SnapshotSummary> {
  return withAfterCommit(pool, async (client, after) => {
    await lockGameRow(client, apiKey);
    const row = await readSnapshot(client, apiKey, kind, id, true);
    // The Manage section goes Live only on top of a Live game, as on the original platform.
    if (kind === 'screens' && (await liveSnapshotIdOf(client, apiKey, 'game')) === null) {
      throw adminErrors.gameNotPublished(apiKey);
    }
    const previous = await liveSnapshotIdOf(client, apiKey, kind);
    await client.query('UPDATE admin_snapshots SET published = true, published_at = $2 WHERE id = $1', [
      id,
      new Date(meta.at),
    ]);
    after(await adapter.goLive?.(client, apiKey, contentOf(row), meta.at));
    await pointLiveAt(client, apiKey, kind, id, meta.at);
    await auditSnapshot(
      client,
      apiKey,
      `${actionArea(kind)}.publish`,
      id,
      meta,
      { liveSnapshotId: previous },
      {
        liveSnapshotId: id,
      },
    );
    return toSummary({ ...row, published: true });
  });
}

/**
 * Takes a snapshot out of the publish history. When it is the one Live runs, Live falls back to the latest snapshot
 * still published, or to nothing.
 */
export async function unpublishSnapshot(
  pool: pg.Pool,
  adapter: PublishAdapter,
  apiKey: string,
  kind: SnapshotKind,
  id: string,
  meta: WriteMeta,
): Promise<SnapshotSummary> {
  return withAfterCommit(pool, async (client, after) => {
    await lockGameRow(client, apiKey);
    const row = await readSnapshot(client, apiKey, kind, id, true);
    if (!row.published) throw adminErrors.snapshotNotPublished(id);
    await client.query('UPDATE admin_snapshots SET published = false, published_at = NULL WHERE id = $1', [
      id,
    ]);
    const live = await liveSnapshotIdOf(client, apiKey, kind);
    let next = live;
    if (live === id) {
      const fallback = await latestPublished(client, apiKey, kind);
      next = fallback?.id ?? null;
      after(await adapter.goLive?.(client, apiKey, fallback ? contentOf(fallback) : null, meta.at));
      await pointLiveAt(client, apiKey, kind, next, meta.at);
    }
    await auditSnapshot(
      client,
      apiKey,
      `${actionArea(kind)}.unpublish`,
      id,
      meta,
      { liveSnapshotId: live },
      {
        liveSnapshotId: next,
      },
    );
    return toSummary({ ...row, published: false });
  });
}

async function latestPublished(
  client: pg.PoolClient,
  apiKey: string,
  kind: SnapshotKind,
): Promise<SnapshotRow | undefined> {
  const { rows } = await client.query<SnapshotRow>(
    `SELECT * FROM admin_snapshots WHERE api_key = $1 AND kind = $2 AND published
     ORDER BY published_at DESC, seq DESC LIMIT 1`,
    [apiKey, kind],
  );
  return rows[0];
}
