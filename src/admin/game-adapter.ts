// What a game snapshot holds and restores: the whole configuration (with its secrets, sealed) and the meta collections.
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { loadCredentialHashes, loadFullConfig, replaceFullConfig } from '../config/config-store.js';
import { openPushCredentials, sealPushCredentials } from '../config/push/credentials.js';
import { pushCredentialsKey } from '../config/push-config.js';
import type { DdlOptions } from '../nosql/indexes.js';
import {
  deletePushCredentials,
  readSealedPushCredentials,
  writeSealedPushCredentials,
} from '../store/push-credentials.js';
import { recordPreviewMetaRestore } from '../store/snapshots.js';
import type { RemoteMeta } from './cluster-meta.js';
import {
  asMeta,
  type MetaContent,
  readMeta,
  replaceMeta,
  type Stage,
  syncMetaIndexes,
} from './meta-collections.js';
import type { PublishAdapter } from './publish.js';
import type { AfterCommit } from './snapshots.js';

/** Kept with a snapshot, never shown: a revert or copy must not lose the credentials' secrets. */
interface ConfigSecrets {
  credentialHashes: Record<string, string>;
  /** The sealed push credentials (bound to the game they were taken from), or null. */
  pushSealed: string | null;
}

/**
 * Writes the push credentials of a snapshot into `apiKey`. Sealed values are bound to their game, so a copy to
 * another game opens them with the origin's binding and seals them again for the target.
 */
async function writePushSealed(
  client: pg.PoolClient,
  apiKey: string,
  sealed: string | null,
  origin: string,
  secretKey: string | undefined,
): Promise<void> {
  await deletePushCredentials(client, apiKey);
  if (sealed === null) return;
  let value = sealed;
  if (origin !== apiKey) {
    const key = await pushCredentialsKey(client, secretKey);
    value = sealPushCredentials(openPushCredentials(sealed, key, origin), key, apiKey);
  }
  await writeSealedPushCredentials(client, apiKey, value);
}

export interface GameAdapterOptions {
  pool: pg.Pool;
  /** PLAYBASE_SECRET_KEY (push credentials). */
  secretKey: string | undefined;
  /** How meta indexes are built after a commit: CONCURRENTLY on PostgreSQL. */
  ddl: DdlOptions;
  log: FastifyBaseLogger;
  /** Games whose documents live on a runtime cluster's own database (docs/topology.md). */
  remote: RemoteMeta;
}

/**
 * The game-snapshot adapter: configuration, secrets and meta collections. For a game on a runtime cluster the meta
 * collections are read from the cluster (Preview) and reach it through the feed: a restore is recorded for its
 * applier, and Live is what the replicated Live snapshot carries.
 */
export function createGameAdapter(o: GameAdapterOptions): PublishAdapter {
  // Index DDL cannot join the transaction; the data is committed already, so a failed build is logged, not thrown.
  const indexesAfterCommit =
    (apiKey: string, stage: Stage, meta: MetaContent): AfterCommit =>
    () =>
      syncMetaIndexes(o.pool, apiKey, stage, meta.indexes, o.ddl).catch((err: unknown) => {
        o.log.error({ err, apiKey, stage }, 'meta collection indexes not synchronised');
      });
  return {
    async capture(client, apiKey) {
      const secrets: ConfigSecrets = {
        credentialHashes: await loadCredentialHashes(client, apiKey),
        pushSealed: await readSealedPushCredentials(client, apiKey),
      };
      const cluster = await o.remote.clusterOf(client, apiKey);
      return {
        config: await loadFullConfig(client, apiKey),
        meta:
          cluster === undefined
            ? await readMeta(client, apiKey, 'preview')
            : await o.remote.readPreview(cluster, apiKey),
        secrets,
      };
    },
    async restore(client, apiKey, content, parts, at) {
      if (parts.config) {
        const secrets = (content.secrets ?? {}) as Partial<ConfigSecrets>;
        await replaceFullConfig(client, apiKey, content.config, {
          credentialHashes: secrets.credentialHashes ?? {},
        });
        await writePushSealed(
          client,
          apiKey,
          secrets.pushSealed ?? null,
          content.origin ?? apiKey,
          o.secretKey,
        );
      }
      if (!parts.meta) return undefined;
      const meta = asMeta(content.meta);
      if ((await o.remote.clusterOf(client, apiKey)) !== undefined) {
        await recordPreviewMetaRestore(client, apiKey, meta, new Date(at));
        return undefined;
      }
      await replaceMeta(client, apiKey, 'preview', meta, at);
      return indexesAfterCommit(apiKey, 'preview', meta);
    },
    async goLive(client, apiKey, content, at) {
      // On a runtime cluster, the applier writes Live from the snapshot the replicated pointer names.
      if ((await o.remote.clusterOf(client, apiKey)) !== undefined) return undefined;
      const meta = asMeta(content?.meta);
      await replaceMeta(client, apiKey, 'live', meta, at);
      return indexesAfterCommit(apiKey, 'live', meta);
    },
  };
}
