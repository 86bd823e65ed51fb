// CORS on the nosql role for web consoles served from another origin (split mode: the console on the config
// role's origin, the stage URLs that endpoint discovery returns on the nosql role's). Only the stage paths
// (/live/**, /preview/**) and only the configured origins (PLAYBASE_CONSOLE_ORIGINS); no cookies are involved
// (the console sends its JWT in X-SVC-JWT), so credentials stay off. Without the setting nothing is registered.
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';

const STAGE_PATH = /^\/(live|preview)\//;

export async function registerConsoleCors(app: App, ctx: Context): Promise<void> {
  const allowed = new Set(ctx.settings.consoleOrigins);
  if (allowed.size === 0) return;
  await app.register(
    fastifyCors,
    () => (request: FastifyRequest, callback: (e: Error | null, o: FastifyCorsOptions) => void) => {
      const origin = request.headers.origin;
      const ok = typeof origin === 'string' && allowed.has(origin) && STAGE_PATH.test(request.url);
      callback(null, {
        origin: ok ? origin : false,
        methods: ['GET', 'POST', 'PUT', 'DELETE'],
        allowedHeaders: ['content-type', 'x-svc-jwt'],
        exposedHeaders: ['x-request-id', 'content-disposition'],
        credentials: false,
        maxAge: 600,
        hideOptionsRoute: true,
      });
    },
  );
}
