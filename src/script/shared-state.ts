// What scripts of one game and stage share in this process: Spark.getCache() and the named locks of lockKey.

/** Most keys one game's stage keeps in its cache; past it the oldest key goes (insertion order). */
const CACHE_KEYS = 1000;
/** Most bytes of JSON one cached value holds. */
export const CACHE_VALUE_BYTES = 1024 * 1024;

export class ScriptCaches {
  private readonly caches = new Map<string, Map<string, string>>();

  private of(tenant: string): Map<string, string> {
    let cache = this.caches.get(tenant);
    if (!cache) {
      cache = new Map();
      this.caches.set(tenant, cache);
    }
    return cache;
  }

  get(tenant: string, key: string): string | undefined {
    return this.caches.get(tenant)?.get(key);
  }

  put(tenant: string, key: string, json: string): void {
    if (json.length > CACHE_VALUE_BYTES)
      throw new Error(`a cached value holds at most ${CACHE_VALUE_BYTES} bytes`);
    const cache = this.of(tenant);
    cache.delete(key);
    cache.set(key, json);
    if (cache.size > CACHE_KEYS) cache.delete(cache.keys().next().value as string);
  }

  remove(tenant: string, key: string): void {
    this.caches.get(tenant)?.delete(key);
  }

  /** Removes every key, or those that start with `prefix` when one is given. */
  removeAll(tenant: string, prefix: string | null): void {
    const cache = this.caches.get(tenant);
    if (!cache) return;
    if (prefix === null) cache.clear();
    else for (const key of [...cache.keys()]) if (key.startsWith(prefix)) cache.delete(key);
  }
}

interface Held {
  owner: number;
  count: number;
}

/** Re-entrant named locks; every lock an execution holds is released when it ends. */
export class ScriptLocks {
  private readonly held = new Map<string, Held>();

  tryLock(key: string, owner: number): boolean {
    const h = this.held.get(key);
    if (!h) {
      this.held.set(key, { owner, count: 1 });
      return true;
    }
    if (h.owner !== owner) return false;
    h.count++;
    return true;
  }

  async lock(key: string, owner: number, waitMs: number): Promise<boolean> {
    const until = Date.now() + waitMs;
    for (;;) {
      if (this.tryLock(key, owner)) return true;
      if (Date.now() >= until) return false;
      await new Promise((r) => setTimeout(r, Math.min(5, Math.max(1, until - Date.now()))));
    }
  }

  unlock(key: string, owner: number, fully: boolean): boolean {
    const h = this.held.get(key);
    if (!h || h.owner !== owner) return false;
    h.count = fully ? 0 : h.count - 1;
    if (h.count <= 0) this.held.delete(key);
    return true;
  }

  releaseAll(owner: number): void {
    for (const [key, h] of this.held) if (h.owner === owner) this.held.delete(key);
  }
}
