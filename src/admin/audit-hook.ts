// Records every successful write through a route that declares an audit area (config.audit) in the audit log,
// app-wide, unless the route's service writes its own entry (config.auditInline).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import type { App } from '../http/app.js';
import { isWriteMethod } from '../http/route-policy.js';
import { type Db, recordAudit } from '../store/audit.js';

/** Reads a game's whole configuration, for the before and after of configuration writes. */
export type ConfigLoader = (db: Db, apiKey: string) => Promise<unknown>;

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

// Query parameters that may carry credentials; their values never reach the log.
const SECRET_PARAM = /token|secret|password|jwt|key/i;

/** The request path with credential-like query values replaced, so the log never holds a secret. */
export function redactPath(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_PARAM.test(key)) params.set(key, 'REDACTED');
  const query = params.toString();
  return query ? `${url.slice(0, q)}?${query}` : url.slice(0, q);
}

// Keys of configuration documents that hold secrets (credentials, push keys); never copied into the log.
const SECRET_KEY = /secret|password|private_?key|keypem|sealed|token/i;

/** A deep copy with every secret-looking value replaced by "REDACTED". */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== null && typeof v !== 'object' ? 'REDACTED' : redactSecrets(v);
  }
  return out;
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
 * Registers the hooks: configuration writes load the whole configuration before the handler and after the answer;
 * every audited write that answered 2xx gets one entry. A failure to record is logged, never turned into an error
 * for a write that has already committed.
 */
export function registerAuditHook(app: App, ctx: Context, loadConfig?: ConfigLoader): void {
  const { pool } = ctx.store;
  const before = new WeakMap<FastifyRequest, unknown>();
  const isConfigWrite = (r: FastifyRequest) => r.routeOptions.config.audit === 'config';
  app.addHook('onRoute', checkDeclaredArea);
  app.addHook('preHandler', async (request) => {
    const apiKey = apiKeyOf(request);
    if (!loadConfig || !apiKey || !isAudited(request) || !isConfigWrite(request)) return;
    before.set(request, await loadConfig(pool, apiKey).catch(() => null));
  });
  // Recorded before the answer is sent: the entry is in the log (in order) when the client sees the answer, and
  // the configuration read as "after" cannot include a later request's write.
  app.addHook('onSend', async (request, reply, payload) => {
    await record(request, reply, payload);
    return payload;
  });
  async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    if (reply.statusCode < 200 || reply.statusCode >= 300 || !isAudited(request)) return;
    // A new game's key is known only from the answer.
    const created =
      request.method === 'POST' && request.routeOptions.url === '/restv2/games' && typeof payload === 'string'
        ? /"apiKey":"([^"]+)"/.exec(payload)?.[1]
        : undefined;
    const apiKey = apiKeyOf(request) ?? created;
    const route = request.routeOptions.url ?? '';
    const principal = request.playbaseAuth;
    try {
      const after = before.has(request) && apiKey && loadConfig ? await loadConfig(pool, apiKey) : undefined;
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
        before: before.has(request) ? redactSecrets(before.get(request)) : undefined,
        after: after === undefined ? undefined : redactSecrets(after),
        at: ctx.clock(),
      });
    } catch (err) {
      request.log.error({ err }, 'audit entry not recorded');
    }
  }
}
