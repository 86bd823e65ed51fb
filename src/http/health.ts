// Liveness and readiness: unauthenticated, cheap, never logged at info level.
import type { App } from '../route/app.js';

/** What /readyz adds to `status`: on a runtime cluster's nosql process, its replica's figures. */
export interface Readiness {
  replica?: {
    cluster: string;
    feed: 'starting' | 'following' | 'unreachable';
    caughtUp: boolean;
    appliedAt: string | null;
    lagMs: number | null;
  };
}

const ReplicaSchema = {
  type: 'object',
  description:
    "A runtime cluster's replica (docs/topology.md): whether it follows the feed, has caught up since the start, when it last applied an answer, and how old its knowledge may be (0 while following)",
  properties: {
    cluster: { type: 'string' },
    feed: { type: 'string', enum: ['starting', 'following', 'unreachable'] },
    caughtUp: { type: 'boolean' },
    appliedAt: { type: ['string', 'null'] },
    lagMs: { type: ['number', 'null'] },
  },
  required: ['cluster', 'feed', 'caughtUp', 'appliedAt', 'lagMs'],
} as const;

export function registerHealthRoutes(app: App, ready: () => Promise<Readiness>): void {
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
        summary:
          "The store answers and migrations are done (on a runtime cluster: its replica has caught up, or serves its stored state while the feed is unreachable; the answer carries the replica's lag)",
        response: {
          200: {
            ...statusSchema('ready'),
            properties: { status: { type: 'string' }, replica: ReplicaSchema },
          },
        },
      },
    },
    async () => ({ status: 'ready', ...(await ready()) }),
  );
}
