// The audit entry of an auth write (the routes declared with AUTH_WRITE): written by the service on the write's
// client, inside its transaction, so it commits or rolls back with the write and is in the log when the answer
// arrives: `auth.<method>`, the route, the path with credential-like query values redacted, the status answered.
import type { FastifyRequest } from 'fastify';
import { recordAudit, redactPath } from '../store/audit.js';
import type { Db } from '../store/scope.js';

/** Records the write's entry on the write's client; services take one and call it in their transaction. */
export type AuthAudit = (client: Db) => Promise<void>;

/** The audit of a write through `request`, which answers `status` when it succeeds. */
export function authAudit(request: FastifyRequest, clock: () => number, status = 200): AuthAudit {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const principal = request.playbaseAuth;
  return (client) =>
    recordAudit(client, {
      // Account writes concern no game; a game's groups and collaborators are recorded on the game.
      apiKey: params.apiKey ?? params.gameApiKey,
      actor: principal?.username ?? 'anonymous',
      credential: principal?.kind,
      action: `${request.routeOptions.config.audit}.${request.method.toLowerCase()}`,
      target: request.routeOptions.url ?? '',
      method: request.method,
      path: redactPath(request.url),
      status,
      requestId: request.id,
      at: clock(),
    });
}
