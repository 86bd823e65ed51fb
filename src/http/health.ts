// Liveness and readiness: unauthenticated, cheap, never logged at info level.
import type { App } from './app.js';

export function registerHealthRoutes(app: App, ready: () => Promise<void>): void {
  const okSchema = {
    type: 'object',
    properties: { status: { type: 'string' } },
    required: ['status'],
  } as const;
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: { tags: ['operations'], summary: 'The process is up', response: { 200: okSchema } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'The store answers and migrations are done',
        response: { 200: okSchema },
      },
    },
    async () => {
      await ready();
      return { status: 'ready' };
    },
  );
}
