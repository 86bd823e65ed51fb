// App-wide layers every role shares: Redis (optional), authentication, then rate and concurrency limits.
import type { FastifyRequest } from 'fastify';
import { type AuthBackend, createAuthBackend } from '../auth/backend.js';
import type { Context } from '../context.js';
import {
  createLimiters,
  createLimitHooks,
  createRedisClient,
  isConfigWriteMethod,
  type RequestClass,
  registerLimitHooks,
} from '../limits/index.js';
import type { App } from './app.js';
import { authenticationHook } from './authenticate.js';

const RUNTIME_PATH = /^\/(?:live|preview)\/rs\//;
const TOKEN_CHECK_ROUTE = '/restv2/auth/user/token';
const CONFIG_ROUTE = /^\/restv2\/game\/:(?:apiKey|gameApiKey)\/config(?:\/|$)/;

/** Which limits a request falls under: unauthenticated routes are not counted; the runtime API has its own. */
export function classifyRequest(request: FastifyRequest): RequestClass {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  // Runtime URLs name a credential, not a game: the runtime routes resolve it first (request.runtimeGame).
  const game = request.runtimeGame ?? params.apiKey ?? params.gameApiKey ?? params.apiKeyOrCredential;
  if (RUNTIME_PATH.test(request.url)) return { kind: 'runtime', game, configWrite: false };
  const principal = request.playbaseAuth;
  const route = request.routeOptions.url ?? '';
  // A split config server checking a caller's token has already counted the caller's request.
  if (!principal || route === TOKEN_CHECK_ROUTE) return { kind: 'none', configWrite: false };
  return {
    kind: 'management',
    user: principal.username,
    game,
    configWrite: isConfigWriteMethod(request.method) && CONFIG_ROUTE.test(route),
  };
}

export function registerPlatformLayers(app: App, ctx: Context): AuthBackend {
  const { settings } = ctx;
  const redis = settings.redisUrl ? createRedisClient(settings.redisUrl, ctx.log) : undefined;
  const limiters = createLimiters({
    redis,
    keyPrefix: settings.redisKeyPrefix,
    ...settings.limits,
    logger: ctx.log,
  });
  const backend = createAuthBackend(ctx, redis);
  // A write through this process's management API forgets the remembered credential checks before it answers;
  // the triggers' notification, which other processes rely on, may come a moment after the response.
  const forgetChecks = async (_request: unknown, _reply: unknown, payload: unknown) => {
    backend.cache.invalidate();
    return payload;
  };
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!route.url.startsWith('/restv2/') || methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    route.onSend = [...[route.onSend ?? []].flat(), forgetChecks] as typeof route.onSend;
  });
  // Declared on every request from the start, so that setting it does not give requests a second shape.
  app.decorateRequest('playbaseAuth', null);
  app.addHook('onRequest', authenticationHook(backend));
  registerLimitHooks(app, createLimitHooks(limiters, { classify: classifyRequest }));
  app.addHook('onClose', async () => {
    await limiters.close();
    await backend.close();
    redis?.disconnect();
  });
  return backend;
}
