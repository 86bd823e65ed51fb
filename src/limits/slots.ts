// Concurrency slots: at most `limit` holders per key, in a Redis sorted set of leases or in process memory.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisHealth } from './redis-health.js';
import type { ReleaseSlot } from './types.js';

/*
 * One sorted set per key: members are slot ids, scores their lease expiry in Redis server time (so process
 * clocks never need to agree). Acquire drops expired leases, then adds one if fewer than the limit remain; the
 * key itself expires with the newest lease, so an abandoned key disappears.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`;

/** Extends a lease that still exists; 0 when it was lost (expired or Redis restarted empty). */
const RENEW_LUA = `
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`;

interface SlotCommands {
  playbaseSlotAcquire(key: string, limit: number, ttlMs: number, member: string): Promise<number>;
  playbaseSlotRenew(key: string, ttlMs: number, member: string): Promise<number>;
}

export interface SlotPool {
  readonly limit: number;
  /** A release function, or null when all slots of the key are taken. */
  acquire(key: string): Promise<ReleaseSlot | null>;
  /** Stops the heartbeats and releases every slot still held (shutdown). */
  close(): Promise<void>;
}

export interface SlotPoolOptions {
  redis: Redis | undefined;
  limit: number;
  /** Lease length; a holder renews every third of it, so a crashed holder's slot frees within ttlMs. */
  ttlMs: number;
  keyPrefix: string;
  health: RedisHealth;
}

function releaseOnce(fn: () => Promise<void>): ReleaseSlot {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}

/** Per-process counts: the store without Redis and the fallback during an outage. */
function createMemorySlots(limit: number) {
  const held = new Map<string, number>();
  return {
    tryTake(key: string): boolean {
      const count = held.get(key) ?? 0;
      if (count >= limit) return false;
      held.set(key, count + 1);
      return true;
    },
    give(key: string): void {
      const count = (held.get(key) ?? 0) - 1;
      if (count > 0) held.set(key, count);
      else held.delete(key);
    },
  };
}

export function createSlotPool(options: SlotPoolOptions): SlotPool {
  const { redis, limit, ttlMs, health } = options;
  const memory = createMemorySlots(limit);
  const held = new Set<ReleaseSlot>();
  if (redis) {
    redis.defineCommand('playbaseSlotAcquire', { numberOfKeys: 1, lua: ACQUIRE_LUA });
    redis.defineCommand('playbaseSlotRenew', { numberOfKeys: 1, lua: RENEW_LUA });
  }
  const commands = redis as unknown as (Redis & SlotCommands) | undefined;

  function track(release: () => Promise<void>): ReleaseSlot {
    const once = releaseOnce(async () => {
      held.delete(once);
      await release();
    });
    held.add(once);
    return once;
  }

  function holdShared(client: Redis & SlotCommands, redisKey: string, member: string): ReleaseSlot {
    const renew = async () => {
      if (!health.shouldTry()) return;
      try {
        const kept = await client.playbaseSlotRenew(redisKey, ttlMs, member);
        health.recordSuccess();
        // A lost lease may already be someone else's slot: taking it back could exceed the limit.
        if (kept === 0) clearInterval(timer);
      } catch (err) {
        health.recordFailure(err);
      }
    };
    const timer = setInterval(renew, Math.max(1, Math.floor(ttlMs / 3)));
    timer.unref();
    return track(async () => {
      clearInterval(timer);
      // If this fails the lease still expires within ttlMs.
      await client.zrem(redisKey, member).catch((err: unknown) => health.recordFailure(err));
    });
  }

  async function acquireShared(
    client: Redis & SlotCommands,
    key: string,
  ): Promise<ReleaseSlot | null | undefined> {
    const redisKey = `${options.keyPrefix}:slots:${key}`;
    const member = randomUUID();
    try {
      const taken = await client.playbaseSlotAcquire(redisKey, limit, ttlMs, member);
      health.recordSuccess();
      return taken === 1 ? holdShared(client, redisKey, member) : null;
    } catch (err) {
      // A timed-out acquire that did land in Redis holds a lease nobody renews: it expires within ttlMs.
      health.recordFailure(err);
      return undefined;
    }
  }

  return {
    limit,
    async acquire(key) {
      if (commands && health.shouldTry()) {
        const shared = await acquireShared(commands, key);
        if (shared !== undefined) return shared;
      }
      if (!memory.tryTake(key)) return null;
      return track(async () => memory.give(key));
    },
    async close() {
      await Promise.all([...held].map((release) => release()));
    },
  };
}
