// Fastify hooks applying the limiters: count each request after authentication, hold a slot per config write.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formatRateLimitHeaders, rateLimited, tooManyConcurrent } from './errors.js';
import type { Limiters } from './limiters.js';
import type { RateResult, RateScope, ReleaseSlot } from './types.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's limit class; default: management (counted per user and per game once authenticated).
     * data: a data service call, counted per game a second. runtime: the runtime API, counted per game.
     * config: a game configuration route; its POST, PUT and PATCH hold a concurrent-write slot.
     * none: never counted (a split config server checking a caller's token has counted the request already).
     */
    rateClass?: 'data' | 'runtime' | 'config' | 'none';
  }
}

/** What the limiters need to know of a request; the caller's classify is the source of truth. */
export interface RequestClass {
  /** The authenticated user name (request.playbaseAuth?.username once authentication ran). */
  user?: string;
  /** The game's API key from the path. */
  game?: string;
  /** management: counted per user and per game; runtime and data: counted per game; none: not counted. */
  kind: 'management' | 'runtime' | 'data' | 'none';
  /** A POST, PUT or PATCH on a game's configuration: holds one concurrency slot while it runs. */
  configWrite: boolean;
}

/** The limit that refused a request: a rate counter, or the concurrent configuration writes. */
export type RefusingLimit = Exclude<RateScope, 'none'> | 'config_writes';

export interface LimitsHookOptions {
  classify(request: FastifyRequest): RequestClass;
  /** Told of each 429 the hooks answer (metrics). */
  onRefused?(limit: RefusingLimit): void;
}

export interface LimitHooks {
  /**
   * preHandler, to run after authentication: counts, sets RateLimit-* headers, rejects with the 429s.
   * Undefined when the request falls under no limit that is on, so that such a request waits for nothing.
   */
  countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined;
  /**
   * Frees the request's slot, if any; idempotent. For onResponse, onRequestAbort, onTimeout and onError.
   * Undefined when the request holds no slot.
   */
  releaseRequestSlot(request: FastifyRequest): Promise<void> | undefined;
}

/** The methods that count as configuration updates (GET, DELETE... are not counted), for classify. */
export function isConfigWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}

export function createLimitHooks(limiters: Limiters, options: LimitsHookOptions): LimitHooks {
  const releases = new WeakMap<FastifyRequest, ReleaseSlot>();
  // Requests waiting for a slot, and those of them whose end was seen, so that a slot granted after the client
  // left is given back at once.
  const waiting = new WeakSet<FastifyRequest>();
  const ended = new WeakSet<FastifyRequest>();

  function releaseRequestSlot(request: FastifyRequest): Promise<void> | undefined {
    if (waiting.has(request)) ended.add(request);
    const release = releases.get(request);
    if (!release) return undefined;
    releases.delete(request);
    return release();
  }

  async function countRate(request: RequestClass, reply: FastifyReply): Promise<void> {
    let result: RateResult | undefined;
    if (request.kind === 'management') result = await limiters.consumeManagement(request.user, request.game);
    else if (request.kind === 'runtime' && request.game !== undefined) {
      result = await limiters.consumeRuntime(request.game);
    } else if (request.kind === 'data' && request.game !== undefined) {
      result = await limiters.consumeData(request.game);
    }
    if (!result || result.scope === 'none') return;
    reply.headers(formatRateLimitHeaders(result));
    if (result.allowed) return;
    options.onRefused?.(result.scope as RefusingLimit);
    throw rateLimited(result);
  }

  async function holdSlot(request: FastifyRequest, reply: FastifyReply, user: string, game: string) {
    // The raw response's close comes after finish and after an abort alike: the last guard against a leak.
    reply.raw.once('close', () => void releaseRequestSlot(request));
    waiting.add(request);
    let release: ReleaseSlot | null;
    try {
      release = await limiters.acquireConfigWriteSlot(user, game);
    } finally {
      waiting.delete(request);
    }
    if (release === null) {
      options.onRefused?.('config_writes');
      throw tooManyConcurrent(limiters.concurrentConfigWrites);
    }
    if (ended.has(request) || reply.raw.destroyed) {
      await release();
      return;
    }
    releases.set(request, release);
  }

  return {
    releaseRequestSlot,
    countRequest(request, reply) {
      const requestClass = options.classify(request);
      const { kind, user, game } = requestClass;
      const counted = kind !== 'none' && limiters.counting[kind];
      const holds =
        requestClass.configWrite &&
        limiters.concurrentConfigWrites > 0 &&
        user !== undefined &&
        game !== undefined;
      if (!counted && !holds) return undefined;
      return (async () => {
        if (counted) await countRate(requestClass, reply);
        if (holds) await holdSlot(request, reply, user, game);
      })();
    },
  };
}

type Done = (error?: Error) => void;

/** Calls done now when there is nothing to wait for, else when pending settles. */
function settle(pending: Promise<void> | undefined, done: Done): void {
  if (pending === undefined) done();
  else pending.then(() => done(), done);
}

/** Adds the hooks to app; call it after the authentication preHandler is added, so the user is known. */
export function registerLimitHooks(app: FastifyInstance, hooks: LimitHooks): void {
  // Callback hooks: most requests have nothing to count or release, and then cost no promise.
  app.addHook('preHandler', (request, reply, done) => settle(hooks.countRequest(request, reply), done));
  app.addHook('onError', (request, _reply, _error, done) => settle(hooks.releaseRequestSlot(request), done));
  app.addHook('onResponse', (request, _reply, done) => settle(hooks.releaseRequestSlot(request), done));
  app.addHook('onRequestAbort', (request, done) => settle(hooks.releaseRequestSlot(request), done));
  app.addHook('onTimeout', (request, _reply, done) => settle(hooks.releaseRequestSlot(request), done));
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
