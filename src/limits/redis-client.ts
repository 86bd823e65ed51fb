// The ioredis client for limits: fails fast while Redis is down so that requests fall back to memory at once.
import { Redis } from 'ioredis';
import type { LimitsLogger } from './types.js';

export interface RedisClientOptions {
  /** A command without an answer after this long fails (a hung Redis); default 1000 ms. */
  commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts; default 1000 ms. */
  maxReconnectDelayMs?: number;
}

/**
 * Creates a client that never queues commands while disconnected (they reject at once and the limiters
 * answer from memory) and reconnects forever, so the limiters return to Redis when it is back.
 * The caller owns the client and quits it after closing the limiters.
 */
export function createRedisClient(
  url: string,
  logger: LimitsLogger,
  options: RedisClientOptions = {},
): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, maxDelay),
  });
  let announced = false;
  client.on('ready', () => {
    if (!announced) logger.info({ component: 'limits' }, 'Redis connected');
    announced = true;
  });
  // Connection errors repeat on every reconnection attempt; the limiters log each outage once instead.
  client.on('error', () => {});
  return client;
}
