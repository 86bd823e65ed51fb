// The server's limiters (request rates, concurrent config writes): in Redis when given, else in memory.
import type { Redis } from 'ioredis';
import { type Counter, type CountResult, counterKey, createCounter } from './counter.js';
import { createRedisHealth } from './redis-health.js';
import { createSharedCounters, type SharedCounterSpec } from './shared-counters.js';
import { createSlotPool } from './slots.js';
import type { LimitsLogger, RateResult, RateScope, ReleaseSlot } from './types.js';

export interface LimitersOptions {
  /** Shared store; see createRedisClient for the fail-fast options it should have. Owned by the caller. */
  redis?: Redis | undefined;
  /** Prefix of every Redis key, e.g. 'playbase' (tests use a unique one). */
  keyPrefix: string;
  /** Management requests a minute per user (spec: 300); 0 turns the counter off. */
  perUserPerMinute: number;
  /** Management requests a minute per game (spec: 600); 0 turns the counter off. */
  perGamePerMinute: number;
  /** Configuration writes in flight per user and game (spec: 10); 0 turns the limit off. */
  concurrentConfigWrites: number;
  /** Runtime (requests API) calls a second per game (fair use); 0 turns the counter off. */
  runtimePerGamePerSecond: number;
  /** Data service (key-value) calls a second per game (prior art: 1000); 0 turns the counter off. */
  dataPerGamePerSecond?: number;
  /** Lease of a concurrency slot in Redis (default 5000 ms): a crashed process's slots free within it. */
  slotTtlMs?: number;
  /** During a Redis outage, how often Redis is tried again (default 1000 ms). */
  redisProbeIntervalMs?: number;
  logger: LimitsLogger;
  clock?: () => number;
}

export interface Limiters {
  /** The configured concurrent configuration writes per user and game (0: off), for the 429 message. */
  readonly concurrentConfigWrites: number;
  /** Which kinds of request any counter is on for: a request of a kind that is off costs no call at all. */
  readonly counting: { readonly management: boolean; readonly runtime: boolean; readonly data: boolean };
  /**
   * Counts one management request against the user's and the game's counters (either may be absent).
   * The user's counter is asked first; a request it refuses never touches the game's counter, and a request the
   * game's counter refuses gives its user point back, so a refused request spends no other counter's budget.
   * The result describes the refusing counter, or, when allowed, the one with the fewest points left.
   */
  consumeManagement(user: string | undefined, game: string | undefined): Promise<RateResult>;
  /** A release function for a configuration write of user on game, or null when all slots are in use. */
  acquireConfigWriteSlot(user: string, game: string): Promise<ReleaseSlot | null>;
  /** Counts one runtime (requests API) call of game. */
  consumeRuntime(game: string): Promise<RateResult>;
  /** Counts one data service call of game. */
  consumeData(game: string): Promise<RateResult>;
  /** Releases the slots still held and stops their heartbeats; does not quit the Redis client. */
  close(): Promise<void>;
}

const NOT_COUNTED: RateResult = {
  allowed: true,
  scope: 'none',
  limit: 0,
  remaining: 0,
  resetSeconds: 0,
  retryAfterSeconds: 0,
};

function toRateResult(
  scope: RateScope,
  count: Pick<CountResult, 'allowed' | 'limit' | 'remaining' | 'msBeforeNext'>,
): RateResult {
  const resetSeconds = Math.max(0, Math.ceil(count.msBeforeNext / 1000));
  return {
    allowed: count.allowed,
    scope,
    limit: count.limit,
    remaining: count.remaining,
    resetSeconds,
    retryAfterSeconds: count.allowed ? 0 : Math.max(1, resetSeconds),
  };
}

/** Keys of concurrency slots: both parts encoded so that no user/game pair can collide with another. */
function slotKey(user: string, game: string): string {
  return `${encodeURIComponent(game)}:${encodeURIComponent(user)}`;
}

export function createLimiters(options: LimitersOptions): Limiters {
  const { redis, keyPrefix } = options;
  const health = createRedisHealth({
    logger: options.logger,
    clock: options.clock ?? Date.now,
    probeIntervalMs: options.redisProbeIntervalMs ?? 1000,
  });
  const counter = (
    name: string,
    points: number,
    durationSec: number,
    store: Redis | undefined,
  ): Counter | undefined =>
    points > 0 ? createCounter({ name, points, durationSec, keyPrefix, redis: store, health }) : undefined;
  // Management requests: in Redis both counters are taken by one script (one round trip, atomic); the
  // in-memory counters below are the fallback while Redis is unreachable.
  const shared = redis ? createSharedCounters(redis, 60_000, options.clock ?? Date.now) : undefined;
  const perUser = counter('user', options.perUserPerMinute, 60, undefined);
  const perGame = counter('game', options.perGamePerMinute, 60, undefined);
  const runtime = counter('runtime', options.runtimePerGamePerSecond, 1, redis);
  const data = counter('data', options.dataPerGamePerSecond ?? 0, 1, redis);
  const slots =
    options.concurrentConfigWrites > 0
      ? createSlotPool({
          redis,
          limit: options.concurrentConfigWrites,
          ttlMs: options.slotTtlMs ?? 5000,
          keyPrefix,
          health,
        })
      : undefined;

  async function consumeManagementShared(
    counted: { scope: RateScope; spec: SharedCounterSpec }[],
  ): Promise<RateResult | undefined> {
    if (!shared || !health.shouldTry()) return undefined;
    try {
      const counts = await shared.consume(counted.map((c) => c.spec));
      if (counts.some((c) => c.reachedStore)) health.recordSuccess();
      const refused = counts.find((c) => !c.allowed);
      // Allowed: the counter with the fewest points left (the user's on a tie) describes the request.
      const chosen = refused ?? counts.reduce((a, b) => (b.remaining < a.remaining ? b : a));
      return toRateResult(counted[chosen.index]?.scope ?? 'none', chosen);
    } catch (err) {
      health.recordFailure(err);
      return undefined;
    }
  }

  async function consumeManagement(user: string | undefined, game: string | undefined): Promise<RateResult> {
    const counted: { scope: RateScope; spec: SharedCounterSpec }[] = [];
    if (perUser && user !== undefined) {
      counted.push({
        scope: 'user',
        spec: { key: counterKey(keyPrefix, 'user', user), points: perUser.limit },
      });
    }
    if (perGame && game !== undefined) {
      counted.push({
        scope: 'game',
        spec: { key: counterKey(keyPrefix, 'game', game), points: perGame.limit },
      });
    }
    if (counted.length === 0) return NOT_COUNTED;
    const sharedResult = await consumeManagementShared(counted);
    if (sharedResult) return sharedResult;
    const userCount = perUser && user !== undefined ? await perUser.consume(user) : undefined;
    if (userCount && !userCount.allowed) return toRateResult('user', userCount);
    const gameCount = perGame && game !== undefined ? await perGame.consume(game) : undefined;
    if (gameCount && !gameCount.allowed) {
      if (userCount && perUser && user !== undefined) await perUser.refund(user, userCount.store);
      return toRateResult('game', gameCount);
    }
    if (userCount && (!gameCount || userCount.remaining <= gameCount.remaining)) {
      return toRateResult('user', userCount);
    }
    return gameCount ? toRateResult('game', gameCount) : NOT_COUNTED;
  }

  return {
    concurrentConfigWrites: options.concurrentConfigWrites,
    counting: {
      management: perUser !== undefined || perGame !== undefined,
      runtime: runtime !== undefined,
      data: data !== undefined,
    },
    consumeManagement,
    async acquireConfigWriteSlot(user, game) {
      return slots ? slots.acquire(slotKey(user, game)) : async () => {};
    },
    async consumeRuntime(game) {
      return runtime ? toRateResult('runtime', await runtime.consume(game)) : NOT_COUNTED;
    },
    async consumeData(game) {
      return data ? toRateResult('data', await data.consume(game)) : NOT_COUNTED;
    },
    async close() {
      await slots?.close();
    },
  };
}
