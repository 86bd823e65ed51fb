// GET /metrics and the HTTP hooks that time every request by its route pattern.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { isLoopbackAddress, metricsAccessCheck } from './access.js';
import type { Metrics } from './metrics.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route's requests are left out of http_request_duration_seconds and the in-flight gauge. */
    httpMetrics?: boolean;
  }
}

/** The label of requests no route matched (404s of unknown paths): never the raw URL, whose values are unbounded. */
const UNMATCHED_ROUTE = 'unmatched';

type Done = () => void;

/** In flight from onRequest until the raw response closes, which it does after an answer and an abort alike. */
function countInFlight(metrics: Metrics, request: FastifyRequest, reply: FastifyReply, done: Done): void {
  if (request.routeOptions.config.httpMetrics !== false) {
    metrics.httpInFlight.inc();
    reply.raw.once('close', () => metrics.httpInFlight.dec());
  }
  done();
}

function timeRequest(metrics: Metrics, request: FastifyRequest, reply: FastifyReply, done: Done): void {
  // Fastify builds request.routeOptions anew on every read: read once.
  const route = request.routeOptions;
  if (route.config.httpMetrics !== false) {
    const labels = {
      method: request.method,
      route: route.url ?? UNMATCHED_ROUTE,
      status_code: String(reply.statusCode),
    };
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  }
  done();
}

const ROUTE_OPTIONS = {
  logLevel: 'warn',
  // A scrape every few seconds would crowd the histogram with one route nobody calls for its answer.
  config: { httpMetrics: false },
  schema: {
    tags: ['operations'],
    operationId: 'getMetrics',
    summary:
      'Prometheus metrics of this process (text format); Bearer PLAYBASE_METRICS_TOKEN, or loopback clients when unset (docs/metrics.md)',
    response: {
      200: {
        description: 'The Prometheus text exposition format, version 0.0.4',
        content: {
          'text/plain': {
            schema: { type: 'string' },
            example:
              '# HELP http_requests_in_flight Requests received and not yet answered\n# TYPE http_requests_in_flight gauge\nhttp_requests_in_flight 1\n',
          },
        },
      },
    },
  },
} as const;

/**
 * The hooks are app-wide, added before any role's routes; the route answers on every role, since each process
 * has its own figures. It is public in the sense of the permission catalogue (no `auth` requirement, so the
 * request limits never count it) and guarded by its own check: the token, or loopback only.
 */
export function registerMetrics(app: App, ctx: Context): void {
  const { metrics } = ctx;
  app.addHook('onRequest', (request, reply, done) => countInFlight(metrics, request, reply, done));
  app.addHook('onResponse', (request, reply, done) => timeRequest(metrics, request, reply, done));
  const { host, metricsToken } = ctx.settings;
  const check = metricsAccessCheck(metricsToken);
  if (metricsToken === undefined && host !== 'localhost' && !isLoopbackAddress(host)) {
    ctx.log.info(
      'GET /metrics answers loopback clients only: set PLAYBASE_METRICS_TOKEN to scrape from elsewhere',
    );
  }
  app.get('/metrics', ROUTE_OPTIONS, async (request, reply) => {
    check(request);
    const text = await metrics.render();
    return reply.type(metrics.contentType).send(text);
  });
}
