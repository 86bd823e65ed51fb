// The runtime requests API, server to server: POST {stageBaseUrl}/rs/{credential}/{secret}/{RequestName}.
//
// The credential is checked in the route's onRequest hook, before the body is read and before the limits
// layer counts the request: the game it names is what the runtime fair-use limit is counted against.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import { registerCallbackRoutes } from './callbacks.js';
import { createConfigCache } from './config-cache.js';
import { type CredentialCache, createCredentialCache } from './credentials.js';
import type { Stage } from './doc-store.js';
import { runtimeErrors } from './errors.js';
import { DEFAULT_LOCKOUT, type LockoutPolicy } from './login-lockout.js';
import { REQUEST_HANDLERS } from './request-handlers.js';
import type { RuntimeEnv } from './request-kit.js';
import { RUNTIME_REQUESTS } from './request-schemas.js';
import { runScripted, type TraceEntry } from './scripted.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The game a runtime request's credential belongs to (set before the limits layer runs). */
    runtimeGame?: string;
  }
}

const RUNTIME_BODY_LIMIT = 256 * 1024;

const REQUESTS = REQUEST_HANDLERS;

export interface RuntimeOptions {
  lockout?: LockoutPolicy;
  /** How long a read configuration version or credential is trusted (default 1000 ms). */
  maxAgeMs?: number;
}

const CredentialParams = Type.Object({
  credential: Type.String({ minLength: 1, maxLength: 200 }),
  secret: Type.String({ minLength: 1, maxLength: 200 }),
});
const Params = Type.Object({
  ...CredentialParams.properties,
  requestName: Type.String({ minLength: 1, maxLength: 100 }),
});
const AnswerSchema = Type.Object(
  {
    '@class': Type.String(),
    // A script's setScriptError may give any JSON value.
    error: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    requestId: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

function bodyObject(body: unknown, requestName: string): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw runtimeErrors.badBody('expected a JSON object');
  const cls = (body as Record<string, unknown>)['@class'];
  if (cls !== undefined && cls !== `.${requestName}`) {
    throw runtimeErrors.badBody(
      `@class ${String(cls).slice(0, 100)} does not match the URL's ${requestName}`,
    );
  }
  return body as Record<string, unknown>;
}

function wantsTrace(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return query?.trace === '1' || query?.trace === 'true';
}

// Requests whose answer carried an `error` object (HTTP 200, as the platform answers them), for the metrics.
const answeredWithError = new WeakSet<FastifyRequest>();

/** Counts every runtime call once it is answered, refusals (bad credential, 429, bad body) included. */
function countRequest(
  env: RuntimeEnv,
  name: string | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  // A request's own route knows its name; the catch-all route reads it from the path.
  const requestName = name ?? (request.params as { requestName?: string }).requestName;
  const known = requestName !== undefined && Object.hasOwn(REQUESTS, requestName);
  const outcome = reply.statusCode >= 400 ? 'failed' : answeredWithError.has(request) ? 'error' : 'ok';
  // Only the known names are labels: a label per name a caller makes up would grow without bound.
  env.metrics.runtimeRequests.inc({ request: known ? requestName : 'unknown', stage: env.stage, outcome });
  done();
}

function registerStage(app: App, env: RuntimeEnv, credentials: CredentialCache): void {
  const checkCredential = async (request: FastifyRequest) => {
    const { credential, secret } = request.params as { credential: string; secret: string };
    const game = await credentials.resolve(env.pool, env.stage, credential, secret);
    if (game === null) throw runtimeErrors.badCredential();
    request.runtimeGame = game;
  };
  const run = async (request: FastifyRequest, requestName: string) => {
    const known = Object.hasOwn(REQUESTS, requestName) ? REQUESTS[requestName] : undefined;
    if (!known) throw runtimeErrors.unknownRequest(requestName.slice(0, 100));
    const body = bodyObject(request.body, requestName);
    const gs = { game: request.runtimeGame as string, stage: env.stage };
    // ?trace=1 in Preview: what each script did (docs/cloud-code.md).
    const trace = env.stage === 'preview' && wantsTrace(request) ? ([] as TraceEntry[]) : undefined;
    const answer = await runScripted(
      { env, gs, body },
      env.scripts,
      {
        requestName,
        responseName: known.answer.slice(1),
        ...(trace ? { trace } : {}),
      },
      known.handler,
    );
    if ('error' in answer) answeredWithError.add(request);
    const requestId = body.requestId;
    return {
      '@class': known.answer,
      ...answer,
      ...(requestId === undefined ? {} : { requestId }),
      ...(trace ? { trace } : {}),
    };
  };
  // One route a request, so that the document describes each body; the handlers check the fields themselves
  // (request-schemas.ts says why), so Fastify is given no body schema to validate.
  for (const [name, doc] of Object.entries(RUNTIME_REQUESTS)) {
    app.post(
      `/rs/:credential/:secret/${name}`,
      {
        bodyLimit: RUNTIME_BODY_LIMIT,
        onRequest: checkCredential,
        onResponse: (request, reply, done) => countRequest(env, name, request, reply, done),
        config: documented({ body: doc.body, response: { 200: doc.answer } }),
        schema: {
          tags: ['runtime'],
          operationId: `${env.stage}${name}`,
          summary: `${name}, run as a game server; see docs/runtime.md`,
          params: CredentialParams,
          body: Type.Unknown(),
          response: { 200: AnswerSchema },
        },
      },
      async (request) => run(request, name),
    );
  }
  // Any other name answers 404 RUNTIME_REQUEST_UNKNOWN, after the credential check as before; not an operation.
  app.post(
    '/rs/:credential/:secret/:requestName',
    {
      bodyLimit: RUNTIME_BODY_LIMIT,
      onRequest: checkCredential,
      onResponse: (request, reply, done) => countRequest(env, undefined, request, reply, done),
      schema: { hide: true, params: Params, body: Type.Unknown(), response: { 200: AnswerSchema } },
    },
    async (request) => run(request, request.params.requestName),
  );
}

/** Registers the requests API of both stages, under /live and /preview (the stage base URLs). */
export async function registerRuntimeRoutes(
  app: App,
  ctx: Context,
  options: RuntimeOptions = {},
): Promise<void> {
  const monotonic = () => performance.now();
  const configs = createConfigCache({ now: monotonic, maxAgeMs: options.maxAgeMs });
  const credentials = createCredentialCache(monotonic, options.maxAgeMs);
  // On a cluster, the applier's writes are forgotten at once (docs/topology.md), not a second later.
  const unsubscribe = ctx.gameChanges?.subscribe((games) => {
    configs.forget(games);
    credentials.clear();
  });
  if (unsubscribe) app.addHook('onClose', async () => unsubscribe());
  for (const stage of ['live', 'preview'] as Stage[]) {
    const env: RuntimeEnv = {
      pool: ctx.store.pool,
      stage,
      clock: ctx.clock,
      configs,
      lockout: options.lockout ?? DEFAULT_LOCKOUT,
      metrics: ctx.metrics,
      ...(ctx.scripts ? { scripts: ctx.scripts } : {}),
    };
    await app.register(async (scope) => registerStage(scope as App, env, credentials), {
      prefix: `/${stage}`,
    });
    // Callback URLs run callbacks/ scripts (docs/cloud-code.md): their own scope, for their body parser.
    await app.register(async (scope) => registerCallbackRoutes(scope as App, env, credentials), {
      prefix: `/${stage}`,
    });
  }
}
