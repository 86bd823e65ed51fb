// App-wide layers every role shares: Redis (optional), authentication, then rate and concurrency limits, and the
// forgetting of remembered credential checks after a write. Each reads the route's declaration (config.auth,
// config.rateClass, config.invalidates: src/route/policy.ts), never its URL.
import type { FastifyRequest } from 'fastify';
import { authenticationHook } from '../auth/authenticate.js';
import { type AuthBackend, createAuthBackend } from '../auth/backend.js';
import type { Context } from '../context.js';
import {
  createLimiters,
  createLimitHooks,
  createRedisClient,
  isConfigWriteMethod,
  type RefusingLimit,
  type RequestClass,
  registerLimitHooks,
} from '../limits/index.js';
import type { App } from '../route/app.js';
import { isWriteMethod } from '../route/policy.js';

/** Which limits a request falls under: unauthenticated routes are not counted; the runtime API has its own. */
function classifyRequest(request: FastifyRequest): RequestClass {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  // Runtime URLs name a credential, not a game: the runtime routes resolve it first (request.runtimeGame).
  const game = request.runtimeGame ?? params.apiKey ?? params.gameApiKey ?? params.apiKeyOrCredential;
  // Fastify builds request.routeOptions anew on every read: read once.
  const rateClass = request.routeOptions.config.rateClass;
  if (rateClass === 'runtime') return { kind: 'runtime', game, configWrite: false };
  const principal = request.playbaseAuth;
  if (!principal || rateClass === 'none') return { kind: 'none', configWrite: false };
  if (rateClass === 'data') return { kind: 'data', game, configWrite: false };
  const configWrite = rateClass === 'config' && isConfigWriteMethod(request.method);
  return { kind: 'management', user: principal.username, game, configWrite };
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
  // A write whose route declares it makes credential checks stale (accounts, tokens, games, collaborators,
  // groups) forgets them in this process before it answers; the triggers' notification, which other processes
  // rely on, may come a moment after the response.
  const forgetChecks = async (_request: unknown, _reply: unknown, payload: unknown) => {
    backend.cache.invalidate();
    return payload;
  };
  // Each route that declares a requirement gets its own authentication hook, after the app-wide onRequest hooks.
  // Every route is registered after this hook is added (the platform layers are the first registrar), and the
  // matrix tests send each route of the interface a request without a credential.
  app.addHook('onRoute', (route) => {
    const need = route.config?.auth;
    if (need) {
      route.onRequest = [
        ...[route.onRequest ?? []].flat(),
        authenticationHook(backend, need),
      ] as typeof route.onRequest;
    }
    const writes = [route.method].flat().some(isWriteMethod);
    if (!writes || !route.config?.invalidates?.includes('auth')) return;
    route.onSend = [...[route.onSend ?? []].flat(), forgetChecks] as typeof route.onSend;
  });
  // Declared on every request from the start, so that setting it does not give requests a second shape.
  app.decorateRequest('playbaseAuth', null);
  const onRefused = (limit: RefusingLimit) => ctx.metrics.limitRefusals.inc({ limit });
  registerLimitHooks(app, createLimitHooks(limiters, { classify: classifyRequest, onRefused }));
  app.addHook('onClose', async () => {
    await limiters.close();
    await backend.close();
    redis?.disconnect();
  });
  return backend;
}
