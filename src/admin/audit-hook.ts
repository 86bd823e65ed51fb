// Records every successful write through a route that declares an audit area (config.audit) in the audit log,
// app-wide, unless the route's service writes its own entry (config.auditInline).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { isWriteMethod } from '../route/policy.js';
import { recordAudit, redactPath, redactSecrets } from '../store/audit.js';

// Where the redaction lived before the services wrote their own entries; its unit test reads it here.
export { redactPath, redactSecrets };

const GAME = '/restv2/game/:apiKey';

/**
 * The area the URL tree puts a route in, or undefined for routes that are not audited (runtime data,
 * discovery...). Not read per request: the hook checks at registration that each write route declares this area.
 */
export function auditAreaOf(route: string): string | undefined {
  if (route.startsWith('/restv2/auth/') || route === '/restv2/auth') return 'auth';
  if (route.startsWith('/restv2/games')) return 'game';
  const game = route.replace('/restv2/game/:gameApiKey', GAME);
  if (game === GAME || game === `${GAME}/restore`) return 'game';
  for (const area of ['config', 'admin', 'manage']) {
    if (game === `${GAME}/${area}` || game.startsWith(`${GAME}/${area}/`)) return area;
  }
  return undefined;
}

function apiKeyOf(request: FastifyRequest): string | undefined {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return params.apiKey ?? params.gameApiKey;
}

function isAudited(request: FastifyRequest): boolean {
  if (!isWriteMethod(request.method)) return false;
  const config = request.routeOptions.config;
  return config.audit !== undefined && !config.auditInline;
}

/** A write route registered without the audit area its URL implies is a mistake caught at start, not a lost entry. */
function checkDeclaredArea(route: {
  url: string;
  method: string | string[];
  config?: { audit?: string };
}): void {
  if (![route.method].flat().some(isWriteMethod)) return;
  const implied = auditAreaOf(route.url);
  if (implied !== route.config?.audit) {
    throw new Error(
      `route ${route.url} declares audit area ${route.config?.audit}, its URL implies ${implied}`,
    );
  }
}

/**
 * Registers the hook: every audited write that answered 2xx gets one entry (configuration, manage and snapshot
 * writes record their own, with before and after, in their transaction). A failure to record is logged, never
 * turned into an error for a write that has already committed.
 */
export function registerAuditHook(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.addHook('onRoute', checkDeclaredArea);
  // Recorded before the answer is sent: the entry is in the log (in order) when the client sees the answer.
  app.addHook('onSend', async (request, reply, payload) => {
    await record(request, reply);
    return payload;
  });
  async function record(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (reply.statusCode < 200 || reply.statusCode >= 300 || !isAudited(request)) return;
    const apiKey = apiKeyOf(request);
    const route = request.routeOptions.url ?? '';
    const principal = request.playbaseAuth;
    try {
      await recordAudit(pool, {
        apiKey,
        actor: principal?.username ?? 'anonymous',
        credential: principal?.kind,
        action: `${request.routeOptions.config.audit}.${request.method.toLowerCase()}`,
        target: route,
        method: request.method,
        path: redactPath(request.url),
        status: reply.statusCode,
        requestId: request.id,
        at: ctx.clock(),
      });
    } catch (err) {
      request.log.error({ err }, 'audit entry not recorded');
    }
  }
}
