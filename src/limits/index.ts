// Public entry of the limits module: what main and the HTTP layer wire together.
export { formatRateLimitHeaders, rateLimited, tooManyConcurrent } from './errors.js';
export {
  createLimitHooks,
  isConfigWriteMethod,
  type LimitHooks,
  type LimitsHookOptions,
  limitsPlugin,
  type RefusingLimit,
  type RequestClass,
  registerLimitHooks,
} from './hook.js';
export { createLimiters, type Limiters, type LimitersOptions } from './limiters.js';
export { createRedisClient, type RedisClientOptions } from './redis-client.js';
export type { LimitsLogger, RateResult, RateScope, ReleaseSlot } from './types.js';
