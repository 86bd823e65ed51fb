// Brute-force protection of Basic logins: failures counted per account and per client address.
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import { loginThrottled } from './errors.js';

export interface LoginGuard {
  /** Throws 429 LOGIN_THROTTLED while the account or the address is blocked. */
  check(username: string, address: string): Promise<void>;
  recordFailure(username: string, address: string): Promise<void>;
  recordSuccess(username: string): Promise<void>;
}

export interface LoginGuardOptions {
  perAccount: number;
  perAddress: number;
  /** How long a tripped key stays blocked. */
  blockSeconds?: number;
  redis?: Redis | undefined;
  keyPrefix?: string;
  /** Told of each login refused with 429 (metrics). */
  onThrottled?: () => void;
}

function limiter(opts: LoginGuardOptions, name: string, points: number): RateLimiterAbstract {
  const common = {
    keyPrefix: `${opts.keyPrefix ?? 'pb'}:login:${name}`,
    points,
    duration: 60,
    blockDuration: opts.blockSeconds ?? 300,
  };
  if (!opts.redis) return new RateLimiterMemory(common);
  // When Redis is unreachable the process keeps protecting itself with its own memory.
  return new RateLimiterRedis({
    ...common,
    storeClient: opts.redis,
    insuranceLimiter: new RateLimiterMemory(common),
  });
}

/** Seconds to wait when the key has used up its failures (blocked or at the limit), else undefined. */
function retryAfter(res: RateLimiterRes | null): number | undefined {
  if (!res || res.remainingPoints > 0) return undefined;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

export function createLoginGuard(opts: LoginGuardOptions): LoginGuard {
  const accounts = limiter(opts, 'account', opts.perAccount);
  const addresses = limiter(opts, 'address', opts.perAddress);
  return {
    async check(username, address) {
      const [a, b] = await Promise.all([accounts.get(username.toLowerCase()), addresses.get(address)]);
      const wait = retryAfter(a) ?? retryAfter(b);
      if (wait === undefined) return;
      opts.onThrottled?.();
      throw loginThrottled(wait);
    },
    async recordFailure(username, address) {
      // consume() rejects once over the limit; the block is what check() reads next time.
      await Promise.allSettled([accounts.consume(username.toLowerCase()), addresses.consume(address)]);
    },
    async recordSuccess(username) {
      await accounts.delete(username.toLowerCase()).catch(() => false);
    },
  };
}
