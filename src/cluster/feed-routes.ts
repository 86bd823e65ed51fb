// GET /restv2/internal/clusters/{cluster}/changes: the feed a runtime cluster's nosql servers keep their replica
// with (docs/topology.md). Served by the auth and config roles (the control database); guarded by the shared
// PLAYBASE_CLUSTER_SECRET, never an account's credential; a long poll: with nothing new it waits for the change
// triggers' notification (migration 0012), or polls the log where notifications do not reach this process.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import { startPeriodic } from '../periodic.js';
import type { App } from '../route/app.js';
import { pruneControlChanges, selectLastChange } from '../store/control-changes.js';
import { currentSchema, type Subscription } from '../store/db.js';
import { parseCursor } from './cursor.js';
import { clusterErrors } from './errors.js';
import { type FeedAnswer, isEmptyAnswer, readFeedAnswer } from './feed.js';
import { holdsSecret } from './secret.js';

const CHANNEL = 'playbase_control';
export const MAX_WAIT_MS = 25_000;
const POLL_MS = 250;
/** Changes are kept a day: a cluster away longer gets the whole state again. */
const KEEP_CHANGES_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

const EXAMPLE: FeedAnswer = {
  cursor: '1042.7731',
  more: false,
  full: null,
  complete: false,
  keys: [],
  accounts: ['{"username":"owner@example.com","password_hash":"!","disabled":false}'],
  deleted: { keys: [], accounts: [] },
  games: [
    {
      apiKey: 'x123456789',
      row: '{"api_key":"x123456789","name":"Race","cluster":"a","owner":"owner@example.com"}',
      children: { game_configs: ['{"api_key":"x123456789","doc":{}}'] },
    },
  ],
};

const Answer = Type.Object(
  {
    cursor: Type.String({ description: 'Pass as `after` next time' }),
    more: Type.Boolean({ description: 'The answer was cut: ask again at once' }),
    full: Type.Union([
      Type.Object({
        from: Type.Union([Type.String(), Type.Null()]),
        to: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    complete: Type.Boolean({ description: 'keys and accounts list everything: remove the others' }),
    keys: Type.Array(Type.String(), { description: 'signing_keys rows (JSON), public half only' }),
    accounts: Type.Array(Type.String(), {
      description: 'accounts rows (JSON), with an unusable password hash',
    }),
    deleted: Type.Object({ keys: Type.Array(Type.String()), accounts: Type.Array(Type.String()) }),
    games: Type.Array(
      Type.Object({
        apiKey: Type.String(),
        row: Type.Union([Type.String(), Type.Null()]),
        children: Type.Union([Type.Record(Type.String(), Type.Array(Type.String())), Type.Null()]),
      }),
    ),
  },
  { examples: [EXAMPLE] },
);

/** Wakes the waiting requests on each notification of this schema; `live()` tells whether they arrive. */
function createWaker(ctx: Context) {
  const waiters = new Set<() => void>();
  // Counts notifications: one that lands while an answer is being read (no waiter yet) is not lost.
  let notified = 0;
  const wake = () => {
    notified++;
    for (const w of waiters) w();
    waiters.clear();
  };
  let schema: string | undefined;
  let live = () => false;
  // Listening starts with the first feed request (a dedicated connection on PostgreSQL: none while it is unused).
  let subscribing: Promise<Subscription | undefined> | undefined;
  const listen = () =>
    ctx.store
      .listen(CHANNEL, (payload) => (schema === undefined || payload === schema) && wake(), wake)
      .then(async (s) => {
        live = () => s.isLive();
        if (s.isLive()) schema = await currentSchema(ctx.store.pool);
        return s;
      })
      .catch((err: unknown) => {
        ctx.log.warn({ err }, 'cluster feed: cannot listen for changes; polling the change log');
        return undefined;
      });
  /**
   * Resolves on a notification after the `since`-th (at once if one came already), or after `ms` (a poll's step
   * when notifications are not live).
   */
  const next = (ms: number, since: number) =>
    new Promise<void>((resolve) => {
      if (notified !== since) return resolve();
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, live() ? ms : Math.min(ms, POLL_MS));
      waiters.add(done);
    });
  return {
    next,
    count: () => {
      subscribing ??= listen();
      return notified;
    },
    live: () => live(),
    wake,
    close: async () => (await subscribing)?.close(),
  };
}

export function registerClusterFeed(app: App, ctx: Context): void {
  const { settings, store } = ctx;
  const waker = createWaker(ctx);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    waker.wake();
  });
  const stopPruning = startPeriodic(
    'cluster change log prune',
    PRUNE_EVERY_MS,
    () => pruneControlChanges(store.pool, new Date(ctx.clock() - KEEP_CHANGES_MS)),
    ctx.log,
  );
  app.addHook('onClose', async () => {
    stopPruning();
    await waker.close();
  });

  /** The answer once something is in it, or when `waitMs` has passed. */
  async function longPoll(cluster: string, after: string | undefined, waitMs: number): Promise<FeedAnswer> {
    const cursor = parseCursor(after);
    const deadline = performance.now() + waitMs;
    // Both taken before the answer is read: a change landing meanwhile is then noticed.
    let since = waker.count();
    let last = waker.live() ? undefined : await selectLastChange(store.pool);
    let answer = await readFeedAnswer(store.pool, cluster, cursor);
    while (isEmptyAnswer(answer) && !closing && performance.now() < deadline) {
      await waker.next(deadline - performance.now(), since);
      since = waker.count();
      if (!waker.live()) {
        // Polling: only a new change number is worth a new answer.
        const seen = await selectLastChange(store.pool);
        if (seen === last) continue;
        last = seen;
      }
      answer = await readFeedAnswer(store.pool, cluster, cursor);
    }
    return answer;
  }

  app.get(
    '/restv2/internal/clusters/:cluster/changes',
    {
      config: { rateClass: 'none' },
      logLevel: 'warn',
      schema: {
        tags: ['internal'],
        operationId: 'getClusterChanges',
        summary:
          "A runtime cluster's replica feed: the state of every game, account and signing key changed after the cursor (docs/topology.md); Bearer PLAYBASE_CLUSTER_SECRET",
        params: Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 128 }) }),
        querystring: Type.Object({
          after: Type.Optional(Type.String({ maxLength: 50_000 })),
          wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS })),
        }),
        response: { 200: Answer },
      },
    },
    async (request) => {
      const secret = settings.replica.secret;
      if (secret === undefined) throw clusterErrors.feedOff();
      if (!holdsSecret(request.headers.authorization, secret)) throw clusterErrors.secretInvalid();
      const { cluster } = request.params;
      if (!Object.hasOwn(settings.clusters, cluster)) throw clusterErrors.unknownCluster(cluster);
      return longPoll(cluster, request.query.after, request.query.wait ?? 0);
    },
  );
}
