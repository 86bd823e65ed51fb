// A cluster's replica loop (docs/topology.md): long-polls the control server's feed from the stored cursor,
// applies each answer with its cursor in one transaction, then tells the caches keyed by game. While the control
// server is down the replica keeps its last state and the loop retries with backoff, logging once per outage.
import { type MetaContent, type Stage, syncMetaIndexes } from '../admin/meta-collections.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { readReplicaCursor } from '../store/replica.js';
import { applyFeedAnswer } from './apply.js';
import type { FeedAnswer } from './feed.js';
import { MAX_WAIT_MS } from './feed-routes.js';
import type { ReplicaStatus } from './replica-status.js';

const FIRST_RETRY_MS = 100;
// Short enough that a change made once the control side is back reaches the cluster within a second; a refused
// connection every half second costs nothing.
const LAST_RETRY_MS = 500;
// As the data server builds them: index builds may outlast the 10 s statement limit.
const INDEX_BUILD_TIMEOUT_MS = 10 * 60 * 1000;

export interface Applier {
  stop(): Promise<void>;
}

export function startApplier(ctx: Context, cluster: string, secret: string, status?: ReplicaStatus): Applier {
  const { store, log } = ctx;
  const base = `${ctx.settings.replica.configUrl}/restv2/internal/clusters/${encodeURIComponent(cluster)}/changes`;
  const abort = new AbortController();

  /** The first request after start does not wait: readiness hangs on its answer. */
  async function fetchAnswer(after: string, wait: number): Promise<FeedAnswer> {
    const url = `${base}?after=${encodeURIComponent(after)}&wait=${wait}`;
    const timeout = AbortSignal.timeout(wait + 10_000);
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${secret}` },
      signal: AbortSignal.any([abort.signal, timeout]),
    });
    if (!res.ok) throw new Error(`feed answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    return (await res.json()) as FeedAnswer;
  }

  const ddl = { concurrently: store.kind === 'postgres', buildTimeoutMs: INDEX_BUILD_TIMEOUT_MS };
  /** Index DDL cannot join the applied transaction: built after it, a failure logged (the data is committed). */
  const syncIndexes = (apiKey: string, stage: Stage, meta: MetaContent) =>
    syncMetaIndexes(store.pool, apiKey, stage, meta.indexes, ddl).catch((err: unknown) => {
      log.error({ err, apiKey, stage }, 'cluster replica: meta collection indexes not synchronised');
    });

  let indexBuilds: Promise<void> = Promise.resolve();

  async function run(): Promise<void> {
    let cursor: string | undefined;
    let outage = false;
    let retryMs = FIRST_RETRY_MS;
    let caughtUp = false;
    while (!abort.signal.aborted) {
      try {
        cursor ??= (await readReplicaCursor(store.pool)) ?? '0';
        const answer = await fetchAnswer(cursor, caughtUp ? MAX_WAIT_MS : 0);
        const { applied, games, meta } = await applyFeedAnswer(store.pool, answer, cursor);
        // Another process of the cluster applied first: start again from where it left the replica.
        cursor = applied ? answer.cursor : undefined;
        if (applied && !answer.more) caughtUp = true;
        if (caughtUp) status?.caughtUp();
        else status?.following();
        if (games === '*' || games.length > 0) ctx.gameChanges?.publish(games);
        // Off the loop (a build may take minutes: changes keep flowing meanwhile), one after another.
        for (const w of meta) indexBuilds = indexBuilds.then(() => syncIndexes(w.apiKey, w.stage, w.meta));
        if (outage) log.info({ cluster }, 'cluster replica: the feed answers again');
        outage = false;
        retryMs = FIRST_RETRY_MS;
      } catch (err) {
        if (abort.signal.aborted) break;
        if (!outage)
          log.warn({ err, cluster }, 'cluster replica: cannot follow the feed; serving the last state');
        outage = true;
        status?.unreachable();
        await new Promise((r) => setTimeout(r, retryMs).unref());
        retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
      }
    }
  }

  const running = run();
  return {
    async stop() {
      abort.abort();
      await running;
      await indexBuilds;
    },
  };
}

/** Starts the replica loop with the server and stops it when the server closes. */
export function registerApplier(app: App, ctx: Context, status?: ReplicaStatus): void {
  const { cluster, secret } = ctx.settings.replica;
  if (cluster === undefined || secret === undefined) return;
  let applier: Applier | undefined;
  app.addHook('onReady', async () => {
    applier = startApplier(ctx, cluster, secret, status);
  });
  app.addHook('preClose', async () => applier?.stop());
}
