// The audit entry of a configuration write: written by the service on the write's client, under the game's lock,
// with the whole configuration read just before and just after the change (secret-looking values redacted).

import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { type AuditInput, recordAudit, redactPath, redactSecrets } from '../store/audit.js';
import { loadFullConfig } from './config-store.js';
import type { FullConfig } from './config-types.js';
import type { AuditWrap } from './game-lock.js';

export type { AuditWrap };

/** The entry of a write through `request`: `<area>.<method>`, the route, the path, the status it answers. */
function entryOf(request: FastifyRequest, apiKey: string, status: number, at: number): AuditInput {
  const principal = request.playbaseAuth;
  return {
    apiKey,
    actor: principal?.username ?? 'anonymous',
    credential: principal?.kind,
    action: `${request.routeOptions.config.audit}.${request.method.toLowerCase()}`,
    target: request.routeOptions.url,
    method: request.method,
    path: redactPath(request.url),
    status,
    requestId: request.id,
    at,
  };
}

/**
 * The configuration as an entry keeps it: each Cloud Code script by its size and SHA-256 instead of its source, so
 * that an entry stays small (a game's scripts may hold megabytes) and still shows which scripts a write changed.
 */
export function withScriptDigests(config: unknown): unknown {
  const scripts = (config as Partial<FullConfig> | null)?.['~scripts'];
  if (!Array.isArray(scripts)) return config;
  return {
    ...(config as FullConfig),
    '~scripts': scripts.map((s) => ({
      folder: s.folder,
      shortCode: s.shortCode,
      size: Buffer.byteLength(s.script, 'utf8'),
      sha256: createHash('sha256').update(s.script, 'utf8').digest('hex'),
    })),
  };
}

/** The request's audit wrap for a configuration write (the route answers `status` when it succeeds). */
export function configAudit(request: FastifyRequest, clock: () => number, status = 200): AuditWrap {
  return async (client, apiKey, change) => {
    const before = redactSecrets(withScriptDigests(await loadFullConfig(client, apiKey)));
    const result = await change();
    const after = redactSecrets(withScriptDigests(await loadFullConfig(client, apiKey)));
    const entry = entryOf(request, apiKey, status, clock());
    await recordAudit(client, { ...entry, before, after });
    return result;
  };
}

/** Records a write that has no configuration to compare (a new game), on the write's client. */
export type RecordWrite = (client: pg.PoolClient, apiKey: string) => Promise<void>;

export function writeAudit(request: FastifyRequest, clock: () => number, status = 200): RecordWrite {
  return (client, apiKey) => recordAudit(client, entryOf(request, apiKey, status, clock()));
}
