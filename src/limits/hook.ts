// Fastify hooks applying the limiters: count each request after authentication, hold a slot per config write.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formatRateLimitHeaders, rateLimited, tooManyConcurrent } from './errors.js';
import type { Limiters } from './limiters.js';
import type { RateResult, ReleaseSlot } from './types.js';

/** What the limiters need to know of a request; the caller's classify is the source of truth. */
export interface RequestClass {
  /** The authenticated user name (request.playbaseAuth?.username once authentication ran). */
  user?: string;
  /** The game's API key from the path. */
  game?: string;
  /** management: counted per user and per game; runtime: counted per game; none: not counted. */
  kind: 'management' | 'runtime' | 'none';
  /** A POST, PUT or PATCH on a game's configuration: holds one concurrency slot while it runs. */
  configWrite: boolean;
}

export interface LimitsHookOptions {
  classify(request: FastifyRequest): RequestClass;
}

export interface LimitHooks {
  /** preHandler, to run after authentication: counts, sets RateLimit-* headers, throws the 429s. */
  countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Frees the request's slot, if any; idempotent. For onResponse, onRequestAbort, onTimeout and onError. */
  releaseRequestSlot(request: FastifyRequest): Promise<void>;
}

/** The methods that count as configuration updates (GET, DELETE... are not counted), for classify. */
export function isConfigWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}

export function createLimitHooks(limiters: Limiters, options: LimitsHookOptions): LimitHooks {
  const releases = new WeakMap<FastifyRequest, ReleaseSlot>();
  // Requests whose end was seen, so a slot granted after the client left is given back at once.
  const ended = new WeakSet<FastifyRequest>();

  async function releaseRequestSlot(request: FastifyRequest): Promise<void> {
    ended.add(request);
    const release = releases.get(request);
    if (!release) return;
    releases.delete(request);
    await release();
  }

  async function countRate(request: RequestClass, reply: FastifyReply): Promise<void> {
    let result: RateResult | undefined;
    if (request.kind === 'management') result = await limiters.consumeManagement(request.user, request.game);
    else if (request.kind === 'runtime' && request.game !== undefined) {
      result = await limiters.consumeRuntime(request.game);
    }
    if (!result || result.scope === 'none') return;
    reply.headers(formatRateLimitHeaders(result));
    if (!result.allowed) throw rateLimited(result);
  }

  async function holdSlot(request: FastifyRequest, reply: FastifyReply, user: string, game: string) {
    // The raw response's close comes after finish and after an abort alike: the last guard against a leak.
    reply.raw.once('close', () => void releaseRequestSlot(request));
    const release = await limiters.acquireConfigWriteSlot(user, game);
    if (release === null) throw tooManyConcurrent(limiters.concurrentConfigWrites);
    if (ended.has(request) || reply.raw.destroyed) {
      await release();
      return;
    }
    releases.set(request, release);
  }

  return {
    releaseRequestSlot,
    async countRequest(request, reply) {
      const requestClass = options.classify(request);
      await countRate(requestClass, reply);
      const { user, game } = requestClass;
      if (requestClass.configWrite && user !== undefined && game !== undefined) {
        await holdSlot(request, reply, user, game);
      }
    },
  };
}

/** Adds the hooks to app; call it after the authentication preHandler is added, so the user is known. */
export function registerLimitHooks(app: FastifyInstance, hooks: LimitHooks): void {
  app.addHook('preHandler', async (request, reply) => hooks.countRequest(request, reply));
  app.addHook('onError', async (request, _reply, _error) => hooks.releaseRequestSlot(request));
  app.addHook('onResponse', async (request, _reply) => hooks.releaseRequestSlot(request));
  app.addHook('onRequestAbort', async (request) => hooks.releaseRequestSlot(request));
  app.addHook('onTimeout', async (request, _reply) => hooks.releaseRequestSlot(request));
}

/** The hooks as a plugin whose hooks apply to the whole app (fastify-plugin's skip-override, set by hand). */
export function limitsPlugin(limiters: Limiters, options: LimitsHookOptions): FastifyPluginAsync {
  const hooks = createLimitHooks(limiters, options);
  const plugin: FastifyPluginAsync = async (app) => registerLimitHooks(app, hooks);
  Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'playbase-limits',
  });
  return plugin;
}
