// What a route declares about its writes, beside its credentials (config.auth) and its limit class
// (config.rateClass): the audit area they are recorded under and the caches they make stale. The app-wide hooks
// read these declarations from the route, never its URL.
import type { FastifyContextConfig } from 'fastify';
import type { App } from './app.js';

/** The audit log's areas: the first word of an entry's action (auth.post, config.put, snapshot.publish...). */
export type AuditArea = 'auth' | 'game' | 'config' | 'admin' | 'manage' | 'players' | 'leaderboards';

/** Caches a successful write can make stale. auth: the remembered credential checks (src/auth/auth-cache.ts). */
export type CacheName = 'auth';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The area a write through this route is audited under; a route without one is not audited. */
    audit?: AuditArea;
    /** The route writes its own audit entry inside its transaction; the app-wide hook leaves it alone. */
    auditInline?: boolean;
    /** Caches this process forgets when a write through this route answers. */
    invalidates?: readonly CacheName[];
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for methods that write (POST, PUT, PATCH, DELETE). */
export function isWriteMethod(method: string): boolean {
  return !READ_METHODS.has(method);
}

/** A write route's policy: its audit area, and whether its writes make remembered credential checks stale. */
export function writePolicy(audit: AuditArea, invalidates: readonly CacheName[] = []) {
  return { audit, invalidates };
}

/**
 * Registers a room's routes with the declarations they all share (the runtime API's limit class), merged under
 * each route's own: a child scope whose routes get them as they are declared.
 */
export async function registerWithPolicy(
  app: App,
  shared: FastifyContextConfig,
  register: (scope: App) => Promise<void> | void,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...shared, ...route.config };
    });
    await register(scope as App);
  });
}
