// The meta collections of a game whose documents live on a runtime cluster's own database (docs/topology.md). The
// control side reads its Preview meta collections from the cluster (GET, Bearer PLAYBASE_CLUSTER_SECRET) when a
// snapshot is taken; a revert or copy records what to restore (migration 0013) and publishing moves the Live
// pointer: both reach the cluster through the feed, whose applier writes them there.
import type pg from 'pg';
import type { ClusterSettings } from '../settings.js';
import { selectNameAndCluster } from '../store/games.js';
import { adminErrors } from './errors.js';
import { asMeta, type MetaContent } from './meta-collections.js';

/** How long a snapshot waits for the cluster's answer (the game's row is locked meanwhile). */
const READ_TIMEOUT_MS = 10_000;

export interface RemoteMeta {
  /** The game's cluster when its documents live on a runtime cluster's own database; else undefined. */
  clusterOf(db: pg.PoolClient, apiKey: string): Promise<string | undefined>;
  /** The game's Preview meta collections as the cluster holds them; 503 CLUSTER_UNREACHABLE when it cannot say. */
  readPreview(cluster: string, apiKey: string): Promise<MetaContent>;
}

/** The path a cluster's nosql servers answer the Preview meta collections on (src/cluster/meta-routes.ts). */
export const previewMetaPath = (cluster: string, apiKey: string) =>
  `/restv2/internal/clusters/${encodeURIComponent(cluster)}/games/${encodeURIComponent(apiKey)}/preview-meta`;

export function createRemoteMeta(
  clusters: Record<string, ClusterSettings>,
  secret: string | undefined,
): RemoteMeta {
  return {
    async clusterOf(db, apiKey) {
      const game = await selectNameAndCluster(db, apiKey);
      if (game === undefined || !Object.hasOwn(clusters, game.cluster)) return undefined;
      return clusters[game.cluster]?.internalUrl ? game.cluster : undefined;
    },
    async readPreview(cluster, apiKey) {
      const base = clusters[cluster]?.internalUrl as string;
      if (secret === undefined)
        throw adminErrors.clusterUnreachable(cluster, 'PLAYBASE_CLUSTER_SECRET is not set');
      let res: Response;
      try {
        res = await fetch(`${base}${previewMetaPath(cluster, apiKey)}`, {
          headers: { authorization: `Bearer ${secret}` },
          signal: AbortSignal.timeout(READ_TIMEOUT_MS),
        });
      } catch (err) {
        throw adminErrors.clusterUnreachable(cluster, err instanceof Error ? err.message : String(err));
      }
      if (!res.ok) {
        const body = (await res.text()).slice(0, 200);
        throw adminErrors.clusterUnreachable(cluster, `answered ${res.status} ${body}`);
      }
      return asMeta(await res.json());
    },
  };
}
