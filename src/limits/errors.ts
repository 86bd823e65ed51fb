// Errors of the limiters: 429s that carry their Retry-After and RateLimit-* headers on the PlaybaseError itself.
import { def, entriesOf, PlaybaseError } from '../errors.js';
import type { RateResult } from './types.js';

const describeScope: Record<RateResult['scope'], string> = {
  user: 'per user',
  game: 'per game',
  runtime: 'per game on the runtime API',
  data: 'per game on the data service',
  none: '',
};

const rateLimitedBase = def(
  'RATE_LIMITED',
  429,
  'Too many requests: the per-user or per-game request rate was exceeded. Retry after `Retry-After` seconds.',
  (limit: number, scope: RateResult['scope'], retryAfter: number) =>
    `Rate limit of ${limit} requests ${describeScope[scope]} exceeded; retry in ${retryAfter} s`,
);

const tooManyConcurrentBase = def(
  'TOO_MANY_CONCURRENT',
  429,
  'Too many configuration updates (POST, PUT, PATCH) of one game by one user are running at once.',
  (limit: number) => `At most ${limit} configuration updates of one game by one user may run at once`,
);

/** The RateLimit-* response headers (delta-seconds reset, as in the IETF draft) for a counted request. */
export function formatRateLimitHeaders(result: RateResult): Record<string, string> {
  return {
    'RateLimit-Limit': String(result.limit),
    'RateLimit-Remaining': String(result.remaining),
    'RateLimit-Reset': String(result.resetSeconds),
  };
}

/** 429 RATE_LIMITED for a denied RateResult; headers: Retry-After plus RateLimit-*. */
export function rateLimited(result: RateResult): PlaybaseError {
  const base = rateLimitedBase(result.limit, result.scope, result.retryAfterSeconds);
  const headers = { 'Retry-After': String(result.retryAfterSeconds), ...formatRateLimitHeaders(result) };
  return new PlaybaseError(base.status, base.code, base.message, undefined, headers);
}

/** 429 TOO_MANY_CONCURRENT; slots free as soon as a running update ends, hence Retry-After 1. */
export function tooManyConcurrent(limit: number): PlaybaseError {
  const base = tooManyConcurrentBase(limit);
  return new PlaybaseError(base.status, base.code, base.message, undefined, { 'Retry-After': '1' });
}

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const limitsCatalogue = entriesOf(rateLimitedBase, tooManyConcurrentBase);
