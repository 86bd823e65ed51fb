// Liveness and readiness: unauthenticated, cheap, never logged at info level.
import type { App } from '../route/app.js';

export function registerHealthRoutes(app: App, ready: () => Promise<void>): void {
  const statusSchema = (status: string) =>
    ({
      type: 'object',
      properties: { status: { type: 'string' } },
      required: ['status'],
      examples: [{ status }],
    }) as const;
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        operationId: 'getHealth',
        summary: 'The process is up',
        response: { 200: statusSchema('ok') },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        summary: 'The store answers and migrations are done',
        response: { 200: statusSchema('ready') },
      },
    },
    async () => {
      await ready();
      return { status: 'ready' };
    },
  );
}
