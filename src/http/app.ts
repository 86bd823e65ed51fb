// Builds the Fastify app: error model, request ids, JSON parsing, OpenAPI, health, and the roles' routes.

import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyServerOptions } from 'fastify';
import { OFFLOAD_BYTES } from '../compute/compute.js';
import type { Context } from '../context.js';
import type { App, RoleRegistrar } from '../route/app.js';
import {
  answerUnmetExpectations,
  clientErrorHandler,
  cutSilentConnections,
  frameworkErrors,
  nodeServerOptions,
  rememberRequestId,
  requireHost,
} from './connections.js';
import { handleError, handleNotFound } from './error-handler.js';
import { type Readiness, registerHealthRoutes } from './health.js';
import { JsonText, parseJsonBody } from './json-body.js';
import { createLogger } from './log.js';
import { generateRequestId } from './request-id.js';
import { AJV_OPTIONS, strictBodySchemaController } from './validators.js';

export interface BuildOptions {
  /** A ready logger; without one the app makes its own from the settings' log level. */
  logger?: FastifyBaseLogger;
  https?: { cert: Buffer; key: Buffer };
  /** App-wide instruments (the metrics' hooks and route), registered before the health routes and the roles. */
  observers?: RoleRegistrar[];
  /** The roles' routes (and app-wide hooks), registered in order. */
  registrars: RoleRegistrar[];
  /** Throws when not ready; else what /readyz adds to its answer (a cluster's replica figures). */
  ready: () => Promise<Readiness>;
}

const JSON_BODY_LIMIT = 4 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a large JSON body as its text (JsonText), for its core to parse off the event loop. */
    jsonText?: boolean;
  }
}

/** A hop count becomes the function Fastify runs for each hop (its typings take no number); the rest as is. */
function trustProxyOption(trust: false | number | string[]): FastifyServerOptions['trustProxy'] {
  if (typeof trust !== 'number') return trust;
  return (_address: string, hop: number) => hop < trust;
}

export async function buildApp(
  ctx: Omit<Context, 'log'>,
  options: BuildOptions,
): Promise<{ app: App; ctx: Context }> {
  const { http } = ctx.settings;
  const serverOptions: FastifyServerOptions & { https?: unknown; http?: unknown } = {
    genReqId: generateRequestId,
    // Timeouts (README, "Configuration"): headers, the whole request, idle keep-alive, a silent connection.
    http: nodeServerOptions(http),
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.connectionTimeoutMs,
    clientErrorHandler: clientErrorHandler(http),
    frameworkErrors,
    requestIdHeader: false,
    // The client's address (login throttle, logs) from X-Forwarded-For, only through the proxies trusted.
    trustProxy: trustProxyOption(http.trustProxy),
    bodyLimit: JSON_BODY_LIMIT,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Querystring, params and headers coerce their strings; JSON bodies are validated strictly (validators.ts).
    ajv: AJV_OPTIONS,
    schemaController: strictBodySchemaController(),
    loggerInstance: options.logger ?? createLogger(ctx.settings.logLevel, ctx.settings.logFormat),
  };
  if (options.https) serverOptions.https = { ...options.https, ...nodeServerOptions(http) };
  const app = Fastify(
    serverOptions as FastifyServerOptions,
  ).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  const fullCtx: Context = { ...ctx, log: app.log };
  if (http.connectionTimeoutMs > 0) cutSilentConnections(app.server);
  answerUnmetExpectations(app.server);

  // While closing, answers in flight end their connection, so keep-alive clients cannot hold shutdown open.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  app.setErrorHandler((error, request, reply) =>
    handleError(error as FastifyError, request, reply, ctx.settings.statementTimeoutMs),
  );
  app.setNotFoundHandler(handleNotFound);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    rememberRequestId(request);
    requireHost(request);
    if (options.https) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
  });
  registerJsonParser(app);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Playbase management and runtime API',
        version: '0.1.0',
        description: 'Self-hostable game backend: auth, configuration and runtime data servers.',
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic' },
          accessToken: { type: 'apiKey', in: 'header', name: 'X-SVCAccessToken' },
          jwt: { type: 'apiKey', in: 'header', name: 'X-SVC-JWT' },
        },
      },
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  for (const observe of options.observers ?? []) await observe(app, fullCtx);
  registerHealthRoutes(app, options.ready);
  for (const register of options.registrars) await register(app, fullCtx);
  return { app, ctx: fullCtx };
}

/**
 * JSON bodies: `application/json` with any parameters (clients send `;charset=UTF-8`). An empty body is an
 * empty object only when the route takes no body; otherwise Fastify reports it as invalid JSON. A route that
 * declares `jsonText` gets a body larger than OFFLOAD_BYTES as its text (JsonText), which its core parses on a
 * compute thread: parsing 4 MB of JSON here would hold every other request for up to a tenth of a second.
 */
function registerJsonParser(app: App): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    /^application\/(?:[\w.+-]+\+)?json(?:\s*;.*)?$/i,
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
    (request, body, done) => {
      const text = body as string;
      if (text.trim() === '') return done(null, undefined);
      if (request.routeOptions.config.jsonText && text.length > OFFLOAD_BYTES)
        return done(null, new JsonText(text));
      try {
        done(null, parseJsonBody(text));
      } catch (e) {
        done(e as Error, undefined);
      }
    },
  );
}
