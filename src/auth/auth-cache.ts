// Remembered answers of the store's credential checks (access token → owner, user × game → access, user →
// disabled), dropped whenever anything that could change them is written, in this process or another.
import type { Subscription } from '../store/db.js';

/** Trigger-fed channel of migration 0009: any write to accounts, tokens, games, collaborators or groups. */
const AUTH_CHANNEL = 'playbase_auth';
/** Even without a notification, an answer is asked again after this long (a safety net, not the mechanism). */
const KEEP_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  at: number;
  value: V;
}

/** Freezes value and everything in it: a remembered answer is shared by every request that gets it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export interface AuthCache {
  /**
   * The remembered value of `key`, else `load()`'s, remembered (frozen) unless something was written meanwhile.
   * Only answers are kept: a refusal (a thrown error) is asked again every time.
   */
  get<V>(kind: string, key: string, load: () => Promise<V>): Promise<V>;
  /** The remembered value of `key` if there is one now, without waiting (the request's fast path). */
  peek<V>(kind: string, key: string): V | undefined;
  /** Forgets everything (a write seen in this process). */
  invalidate(): void;
  /** True while answers are kept: notifications reach this process. */
  isActive(): boolean;
  close(): Promise<void>;
}

export interface AuthCacheOptions {
  clock: () => number;
  /** ctx.store.listen; without it (or while its connection is down) nothing is kept. */
  listen?: (channel: string, onNotify: (payload: string) => void, onGap: () => void) => Promise<Subscription>;
  onError?: (err: unknown) => void;
}

export function createAuthCache(options: AuthCacheOptions): AuthCache {
  const { clock } = options;
  // One map per kind of answer: no key has to be built from two parts on every request.
  const entries = new Map<string, Map<string, Entry<unknown>>>();
  let size = 0;
  // Bumped by every invalidation: a load that started before it must not be remembered after it.
  let generation = 0;
  let subscription: Subscription | undefined;
  let closed = false;

  const invalidate = () => {
    generation++;
    entries.clear();
    size = 0;
  };
  const isActive = () => !closed && subscription?.isLive() === true;

  const listening = options.listen?.(AUTH_CHANNEL, invalidate, invalidate);
  listening?.then(
    (s) => {
      if (closed) void s.close();
      else subscription = s;
      invalidate();
    },
    (err: unknown) => options.onError?.(err),
  );

  function peek<V>(kind: string, key: string): V | undefined {
    if (!isActive()) return undefined;
    const hit = entries.get(kind)?.get(key);
    const now = clock();
    return hit && now - hit.at < KEEP_MS && now >= hit.at ? (hit.value as V) : undefined;
  }

  return {
    peek,
    async get<V>(kind: string, key: string, load: () => Promise<V>): Promise<V> {
      const remembered = peek<V>(kind, key);
      if (remembered !== undefined) return remembered;
      const now = clock();
      const seen = generation;
      const value = await load();
      if (seen === generation && isActive()) {
        if (size >= MAX_ENTRIES) invalidate();
        let ofKind = entries.get(kind);
        if (!ofKind) {
          ofKind = new Map();
          entries.set(kind, ofKind);
        }
        if (!ofKind.has(key)) size++;
        ofKind.set(key, { at: now, value: deepFreeze(value) });
      }
      return value;
    },
    invalidate,
    isActive,
    async close() {
      closed = true;
      invalidate();
      await subscription?.close();
    },
  };
}
