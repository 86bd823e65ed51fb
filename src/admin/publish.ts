// Publishing: which snapshot the Live stage runs. One transaction moves the pointer and the Live meta collections.
import type pg from 'pg';
import { pointLiveAt, selectLatestPublished, setPublished } from '../store/snapshots.js';
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
    await setPublished(client, apiKey, id, new Date(meta.at));
    after(await adapter.goLive?.(client, apiKey, contentOf(row), meta.at));
    await pointLiveAt(client, apiKey, kind, id, new Date(meta.at));
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
    await setPublished(client, apiKey, id, null);
    const live = await liveSnapshotIdOf(client, apiKey, kind);
    let next = live;
    if (live === id) {
      const fallback = await selectLatestPublished(client, apiKey, kind);
      next = fallback?.id ?? null;
      after(await adapter.goLive?.(client, apiKey, fallback ? contentOf(fallback) : null, meta.at));
      await pointLiveAt(client, apiKey, kind, next, new Date(meta.at));
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
