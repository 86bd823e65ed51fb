// The HTTP server's settings: connection timeouts and the proxies trusted for the client's address (read by
// src/settings.ts).
import { isIP } from 'node:net';
import { readInt, SettingsError } from './settings-error.js';

type Env = Record<string, string | undefined>;

export interface HttpSettings {
  /**
   * PLAYBASE_TRUST_PROXY: false (unset), a number of proxy hops in front, or the proxies' addresses (IPs, CIDR
   * ranges, `loopback`, `linklocal`, `uniquelocal`). Decides which `X-Forwarded-For` entry is the client.
   */
  trustProxy: false | number | string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  connectionTimeoutMs: number;
}

/**
 * Connection timeouts. The request timeout bounds only the receiving of a request (headers and body), never the
 * time the server takes to answer, so long exports, index builds and big finds are not cut by it. The
 * connection timeout (socket inactivity) is the backstop for any silent connection, and exceeds the longest
 * legitimate silence: an index build of up to 10 minutes.
 */
export function readHttp(env: Env): HttpSettings {
  const headersTimeoutMs = readInt(env, 'PLAYBASE_HTTP_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000);
  const requestTimeoutMs = readInt(env, 'PLAYBASE_HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000);
  // Node refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new SettingsError(
      'PLAYBASE_HTTP_HEADERS_TIMEOUT_MS',
      'must not exceed PLAYBASE_HTTP_REQUEST_TIMEOUT_MS',
    );
  return {
    trustProxy: readTrustProxy(env),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: readInt(env, 'PLAYBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS', 10_000, 100, 600_000),
    connectionTimeoutMs: readInt(env, 'PLAYBASE_HTTP_CONNECTION_TIMEOUT_MS', 900_000, 0, 86_400_000),
  };
}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Which proxies' `X-Forwarded-For` is believed. Never "every hop": the left-most entries are whatever the client
 * wrote, so trusting all of them lets a client pick the address its login failures are counted under.
 */
function readTrustProxy(env: Env): false | number | string[] {
  const name = 'PLAYBASE_TRUST_PROXY';
  const raw = env[name]?.trim() ?? '';
  if (raw === '' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return readInt(env, name, 0, 1, 10);
  if (raw === 'true')
    throw new SettingsError(
      name,
      'trusting every hop lets a client choose its own address: give the number of proxies in front (1) or their addresses',
    );
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.includes(entry)) continue;
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined)
      throw new SettingsError(
        name,
        `"${entry}" is not an address, a CIDR range or one of ${PROXY_RANGE_NAMES.join(', ')} (or give a hop count)`,
      );
  }
  return entries;
}
