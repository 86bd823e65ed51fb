// Fixed-window counters shared through Redis, with points leased in small blocks: a process takes a few points
// of a counter's window in one round trip and hands them to its next requests from memory.
import type { Redis } from 'ioredis';

/** One counter a request takes a point from. */
export interface SharedCounterSpec {
  /** The whole Redis key: `<prefix>:rl:<name>:<key>`. */
  key: string;
  points: number;
}

/**
 * What one counter answered. Counters after a refusing one are absent (not asked); a point taken from an earlier
 * counter of a refused request has been given back.
 */
export interface SharedCount {
  /** The counter's place in the list given to consume. */
  index: number;
  allowed: boolean;
  limit: number;
  /** Points left in the window, as far as this process knows (other processes' unused leases count as used). */
  remaining: number;
  msBeforeNext: number;
  /** True when this answer needed a Redis round trip. */
  reachedStore: boolean;
}

export interface SharedCounters {
  /** Takes a point from each counter in order; rejects when Redis fails (nothing is then taken). */
  consume(counters: SharedCounterSpec[]): Promise<SharedCount[]>;
}

/*
 * For each KEYS[i]: leases up to ARGV[2i - 1] points of it (limit ARGV[2i]), never past the limit; its window
 * (the last ARGV, in ms) starts with the key. Returns, per key, the points granted, the window's count after the
 * grant and the milliseconds the window has left.
 */
const LEASE_SCRIPT = `
local window = tonumber(ARGV[#ARGV])
local out = {}
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  local grant = math.max(0, math.min(tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i]) - count))
  if grant > 0 then count = redis.call('INCRBY', KEYS[i], grant) end
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], window)
    ttl = window
  end
  out[3 * i - 2] = grant
  out[3 * i - 1] = count
  out[3 * i] = ttl
end
return out
`;

const COMMAND = 'playbaseLeaseCounters';

type ScriptCaller = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<number[]>;

/** Most counters leased in one script call. */
const BATCH_MAX = 100;

interface LeaseRequest {
  key: string;
  wanted: number;
  points: number;
  resolve(granted: [granted: number, count: number, ttl: number]): void;
  reject(err: unknown): void;
}

/** The most points one process holds of a counter at once... */
const MAX_LEASE = 64;
/** ...and never more than this share of what is left in the window, so the last points go one at a time. */
const LEASE_SHARE = 32;
/** Past this many counters known, the ones whose window ended are dropped. */
const SWEEP_SIZE = 10_000;

interface Lease {
  /** Local time at which the counter's window ends in Redis. */
  windowEnd: number;
  /** Points leased to this process and not yet handed to a request. */
  tokens: number;
  /** The window's count in Redis after this process's last lease. */
  count: number;
  /** Size of the last lease: doubled on each refill, so a busy counter quickly needs few round trips. */
  lastLease: number;
  /** Set when Redis granted nothing: the window is spent until windowEnd. */
  spent: boolean;
  /** The lease being fetched; requests arriving meanwhile wait for it instead of asking Redis too. */
  refill: Promise<void> | undefined;
}

export function createSharedCounters(
  redis: Redis,
  windowMs: number,
  clock: () => number = Date.now,
): SharedCounters {
  // defineCommand sends EVALSHA and loads the script on NOSCRIPT (a restarted or flushed Redis) by itself.
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { lua: LEASE_SCRIPT });
  const script = (redis as unknown as Record<string, ScriptCaller>)[COMMAND] as ScriptCaller;
  const leases = new Map<string, Lease>();

  // Leases asked for during one turn of the event loop (the requests it read) go to Redis in one script call:
  // a round trip costs far more in system calls than the script does in Redis.
  const batch: LeaseRequest[] = [];
  function flush(): void {
    const sending = batch.splice(0, BATCH_MAX);
    if (batch.length > 0) setImmediate(flush);
    const args: (string | number)[] = sending.map((r) => r.key);
    for (const r of sending) args.push(r.wanted, r.points);
    args.push(windowMs);
    script.call(redis, sending.length, ...args).then(
      (reply) => {
        for (const [i, r] of sending.entries()) {
          r.resolve([Number(reply[3 * i]), Number(reply[3 * i + 1]), Number(reply[3 * i + 2])]);
        }
      },
      (err: unknown) => {
        for (const r of sending) r.reject(err);
      },
    );
  }
  function lease(key: string, wanted: number, points: number): Promise<[number, number, number]> {
    return new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ key, wanted, points, resolve, reject });
    });
  }

  function current(key: string, now: number): Lease | undefined {
    const found = leases.get(key);
    if (found && found.windowEnd <= now && !found.refill) {
      leases.delete(key);
      return undefined;
    }
    return found;
  }

  function refill(key: string, points: number, known: Lease | undefined): Promise<void> {
    if (!known && leases.size >= SWEEP_SIZE) {
      const now = clock();
      for (const [k, l] of leases) if (l.windowEnd <= now && !l.refill) leases.delete(k);
    }
    const entry: Lease = known ?? {
      windowEnd: Number.POSITIVE_INFINITY,
      tokens: 0,
      count: 0,
      lastLease: 0,
      spent: false,
      refill: undefined,
    };
    leases.set(key, entry);
    const wanted = Math.max(
      1,
      Math.min(MAX_LEASE, entry.lastLease * 2, Math.floor((points - entry.count) / LEASE_SHARE)),
    );
    entry.refill = (async () => {
      try {
        const [granted, count, ttl] = await lease(key, wanted, points);
        const now = clock();
        // A lease of a new window (the old one ended in Redis meanwhile) replaces what is left of the old one.
        if (count < entry.count || now >= entry.windowEnd) entry.tokens = 0;
        entry.windowEnd = now + Math.max(0, ttl);
        entry.count = count;
        entry.tokens += granted;
        entry.lastLease = granted;
        entry.spent = granted === 0;
      } catch (err) {
        // Nothing was leased; forget the counter so that the next request asks Redis afresh.
        if (entry.tokens === 0 && leases.get(key) === entry) leases.delete(key);
        throw err;
      } finally {
        entry.refill = undefined;
      }
    })();
    return entry.refill;
  }

  /** One point of one counter: from the process's lease, else from a new lease. */
  async function take(
    spec: SharedCounterSpec,
    index: number,
  ): Promise<{ count: SharedCount; entry: Lease | undefined }> {
    let reachedStore = false;
    for (;;) {
      const now = clock();
      const entry = current(spec.key, now);
      if (entry && !entry.refill) {
        const msBeforeNext = Math.max(0, entry.windowEnd - now);
        if (entry.tokens > 0) {
          entry.tokens--;
          const remaining = Math.max(0, spec.points - entry.count + entry.tokens);
          const count = { index, allowed: true, limit: spec.points, remaining, msBeforeNext, reachedStore };
          return { count, entry };
        }
        if (entry.spent) {
          const count = {
            index,
            allowed: false,
            limit: spec.points,
            remaining: 0,
            msBeforeNext,
            reachedStore,
          };
          return { count, entry: undefined };
        }
      }
      reachedStore = true;
      await (entry?.refill ?? refill(spec.key, spec.points, entry));
    }
  }

  return {
    async consume(counters) {
      // Every counter that needs a new lease asks now, so that they share one round trip.
      const now = clock();
      for (const spec of counters) {
        const entry = current(spec.key, now);
        if (!entry || (!entry.refill && entry.tokens === 0 && !entry.spent)) {
          refill(spec.key, spec.points, entry).catch(() => {}); // take() sees the failure
        }
      }
      const results: SharedCount[] = [];
      const taken: { entry: Lease; windowEnd: number }[] = [];
      // A point goes back to the lease it came from, unless that lease has since moved to a new window.
      const giveBack = () => {
        for (const { entry, windowEnd } of taken) if (entry.windowEnd === windowEnd) entry.tokens++;
      };
      for (const [index, spec] of counters.entries()) {
        let outcome: Awaited<ReturnType<typeof take>>;
        try {
          outcome = await take(spec, index);
        } catch (err) {
          giveBack();
          throw err;
        }
        results.push(outcome.count);
        if (!outcome.count.allowed) {
          // A refused request spends no other counter's budget: its earlier points go back to the lease.
          giveBack();
          return results;
        }
        if (outcome.entry) taken.push({ entry: outcome.entry, windowEnd: outcome.entry.windowEnd });
      }
      return results;
    },
  };
}
