// Whether the limiters should ask Redis: an outage is logged once, Redis is probed again every interval.

import type { LimitsLogger } from './types.js';

export interface RedisHealth {
  /** True while Redis is believed up, and once per probe interval during an outage. */
  shouldTry(): boolean;
  recordFailure(err: unknown): void;
  recordSuccess(): void;
  isDown(): boolean;
}

export interface RedisHealthOptions {
  logger: LimitsLogger;
  clock: () => number;
  /** During an outage, how often a request tries Redis again; a hung Redis costs one timeout per interval. */
  probeIntervalMs: number;
}

export function createRedisHealth(options: RedisHealthOptions): RedisHealth {
  const { logger, clock, probeIntervalMs } = options;
  let down = false;
  let downSince = 0;
  let nextProbeAt = 0;
  return {
    shouldTry: () => !down || clock() >= nextProbeAt,
    isDown: () => down,
    recordFailure(err) {
      nextProbeAt = clock() + probeIntervalMs;
      if (down) return;
      down = true;
      downSince = clock();
      const reason = err instanceof Error ? err.message : String(err);
      logger.warn(
        { component: 'limits', reason },
        'Redis unreachable: rate and concurrency limits now count in this process only',
      );
    },
    recordSuccess() {
      if (!down) return;
      down = false;
      logger.info(
        { component: 'limits', outageMs: clock() - downSince },
        'Redis reachable again: rate and concurrency limits are shared again',
      );
    },
  };
}
