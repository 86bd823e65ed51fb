// One request counter (fixed window, rate-limiter-flexible): in Redis when given and up, else in process memory.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisHealth } from './redis-health.js';

export type CounterStore = 'redis' | 'memory';

export interface CountResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  msBeforeNext: number;
  /** Which store counted it, so that a refund goes to the same one. */
  store: CounterStore;
  /** False when refused without asking the store (the key is known to be past its limit). */
  reachedStore: boolean;
}

export interface Counter {
  readonly limit: number;
  consume(key: string): Promise<CountResult>;
  /** Gives back one point taken by consume (a request refused by another counter). Never rejects. */
  refund(key: string, store: CounterStore): Promise<void>;
}

export interface CounterOptions {
  /** Part of the key: `<keyPrefix>:rl:<name>:<key>`. */
  name: string;
  points: number;
  durationSec: number;
  keyPrefix: string;
  redis: Redis | undefined;
  health: RedisHealth;
}

type Limiter = RateLimiterMemory | RateLimiterRedis;

/** The Redis key of counter `name` for `key`: `<prefix>:rl:<name>:<key>`. */
export function counterKey(prefix: string, name: string, key: string): string {
  return `${prefix}:rl:${name}:${key}`;
}

function toCount(res: RateLimiterRes, allowed: boolean, limit: number, store: CounterStore): CountResult {
  // A refusal from the in-memory block never reached the store and carries consumedPoints 0.
  const reachedStore = allowed || res.consumedPoints > 0;
  return {
    allowed,
    limit,
    remaining: res.remainingPoints,
    msBeforeNext: res.msBeforeNext,
    store,
    reachedStore,
  };
}

/** A denial is the library rejecting with a RateLimiterRes; any other rejection is a store failure. */
async function consumeFrom(limiter: Limiter, key: string, store: CounterStore): Promise<CountResult> {
  try {
    return toCount(await limiter.consume(key), true, limiter.points, store);
  } catch (err) {
    if (err instanceof RateLimiterRes) return toCount(err, false, limiter.points, store);
    throw err;
  }
}

/*
 * The fallback is done here rather than with the library's insuranceLimiter: that option hides the failure,
 * and we must log each outage once, log the return, and refund a point to the store that took it.
 */
export function createCounter(options: CounterOptions): Counter {
  const { points, durationSec, redis, health } = options;
  const keyPrefix = `${options.keyPrefix}:rl:${options.name}`;
  const memory = new RateLimiterMemory({ keyPrefix, points, duration: durationSec });
  const shared = redis
    ? new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points,
        duration: durationSec,
        rejectIfRedisNotReady: true,
        // A key past its limit is refused from memory for the rest of its window: a client hammering after
        // its 429 costs no Redis round trip.
        inMemoryBlockOnConsumed: points + 1,
      })
    : undefined;

  return {
    limit: points,
    async consume(key) {
      if (shared && health.shouldTry()) {
        try {
          const result = await consumeFrom(shared, key, 'redis');
          if (result.reachedStore) health.recordSuccess();
          return result;
        } catch (err) {
          health.recordFailure(err);
        }
      }
      return consumeFrom(memory, key, 'memory');
    },
    async refund(key, store) {
      if (store === 'memory' || !shared) {
        await memory.reward(key, 1);
        return;
      }
      // A lost refund costs the caller one point of this window at most; not worth failing the request.
      await shared.reward(key, 1).catch((err: unknown) => health.recordFailure(err));
    },
  };
}
