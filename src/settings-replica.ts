// The settings of a runtime cluster's replica (docs/topology.md), read by src/settings.ts.
import { SettingsError } from './settings-error.js';

export interface ReplicaSettings {
  /** PLAYBASE_CLUSTER: this nosql process keeps a replica of its cluster's games in its own database. */
  cluster: string | undefined;
  /** PLAYBASE_CONFIG_URL: the feed it reads (default: the auth URL), without a trailing slash. */
  configUrl: string;
  /** PLAYBASE_CLUSTER_SECRET: the feed's bearer secret, on both sides; unset on a control server → no feed. */
  secret: string | undefined;
}

/** A cluster replica runs the nosql role alone, on a cluster the settings name, with the feed's secret. */
export function readReplica(
  env: Record<string, string | undefined>,
  roles: readonly string[],
  clusters: object,
  configUrl: string,
): ReplicaSettings {
  const secret = env.PLAYBASE_CLUSTER_SECRET || undefined;
  if (secret !== undefined && secret.length < 32)
    throw new SettingsError('PLAYBASE_CLUSTER_SECRET', 'must be at least 32 characters');
  const cluster = env.PLAYBASE_CLUSTER?.trim() || undefined;
  const replica = { cluster, configUrl: configUrl.replace(/\/+$/, ''), secret };
  if (cluster === undefined) return replica;
  if (!Object.hasOwn(clusters, cluster))
    throw new SettingsError('PLAYBASE_CLUSTER', `"${cluster}" is not local nor in PLAYBASE_CLUSTERS`);
  if (roles.includes('auth') || roles.includes('config') || !roles.includes('nosql'))
    throw new SettingsError('PLAYBASE_CLUSTER', 'a cluster replica runs only the nosql role');
  if (secret === undefined)
    throw new SettingsError('PLAYBASE_CLUSTER_SECRET', 'is required when PLAYBASE_CLUSTER is set');
  return replica;
}

/** A cluster's internalUrl: an http(s) URL without a trailing slash, or null when not given. */
export function readInternalUrl(name: string, raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const bad = () =>
    new SettingsError('PLAYBASE_CLUSTERS', `cluster "${name}": internalUrl must be an http(s) URL`);
  if (typeof raw !== 'string') throw bad();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad();
  return raw.replace(/\/+$/, '');
}
