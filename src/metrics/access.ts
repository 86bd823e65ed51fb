// Who may read GET /metrics: the holder of PLAYBASE_METRICS_TOKEN when it is set, else only loopback clients.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { metricsErrors } from './errors.js';

// A proxy on the same host makes every client look local: a request it forwarded is never taken for loopback.
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Throws the 401 or 403 of a request that may not read the metrics. */
export function metricsAccessCheck(token: string | undefined): (request: FastifyRequest) => void {
  if (token === undefined) {
    return (request) => {
      const forwarded = FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined);
      if (forwarded || !isLoopbackAddress(request.socket.remoteAddress)) throw metricsErrors.loopbackOnly();
    };
  }
  // Both sides hashed to 32 bytes: the comparison takes the same time whatever was sent, its length included.
  const expected = digest(token);
  return (request) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') throw metricsErrors.tokenRequired();
    const sent = BEARER.exec(header)?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) throw metricsErrors.tokenInvalid();
  };
}
