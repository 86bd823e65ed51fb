// Stage configuration per game, cached: the version is re-read at most once a second, the document on change.
import { getStageVersion, loadStageConfig } from '../config/stages.js';
import type { Db, Stage } from './doc-store.js';
import { compileRuntimeConfig, type RuntimeConfig } from './runtime-config.js';

export interface ConfigCache {
  /** The stage's configuration, or null when Live runs nothing (no published snapshot). */
  get(db: Db, apiKey: string, stage: Stage): Promise<RuntimeConfig | null>;
  /** Forgets the games' cached versions (a cluster's replica changed them): the next get reads the store. */
  forget(apiKeys: readonly string[] | '*'): void;
}

export interface ConfigCacheOptions {
  /** Monotonic milliseconds (performance.now): the age of a cached version. */
  now: () => number;
  /** How long a read version is trusted; a change is seen within this (default 1000). */
  maxAgeMs?: number;
  /** Games cached at most; past it the cache starts again empty (default 10000). */
  maxGames?: number;
}

interface Entry {
  version: string | null;
  config: RuntimeConfig | null;
  checkedAt: number;
}

export function createConfigCache(options: ConfigCacheOptions): ConfigCache {
  const maxAge = options.maxAgeMs ?? 1000;
  const maxGames = options.maxGames ?? 10_000;
  const entries = new Map<string, Entry>();
  // One refresh in flight per game and stage: a burst of requests after a change loads the document once.
  const inFlight = new Map<string, Promise<RuntimeConfig | null>>();

  async function refresh(db: Db, apiKey: string, stage: Stage, key: string): Promise<RuntimeConfig | null> {
    const old = entries.get(key);
    const checkedAt = options.now();
    const version = await getStageVersion(db, apiKey, stage);
    if (old && old.version === version) {
      old.checkedAt = checkedAt;
      return old.config;
    }
    const loaded = version === null ? null : await loadStageConfig(db, apiKey, stage);
    const config = loaded ? compileRuntimeConfig(loaded.version, loaded.config) : null;
    if (entries.size >= maxGames) entries.clear();
    entries.set(key, { version: loaded?.version ?? null, config, checkedAt });
    return config;
  }

  return {
    get(db, apiKey, stage) {
      const key = `${stage}\u0000${apiKey}`;
      const entry = entries.get(key);
      if (entry && options.now() - entry.checkedAt < maxAge) return Promise.resolve(entry.config);
      let pending = inFlight.get(key);
      if (!pending) {
        pending = refresh(db, apiKey, stage, key).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
    forget(apiKeys) {
      if (apiKeys === '*') entries.clear();
      else
        for (const apiKey of apiKeys)
          for (const stage of ['live', 'preview']) entries.delete(`${stage}\u0000${apiKey}`);
    },
  };
}
