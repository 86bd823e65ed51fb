// Assembles one Playbase process: store → migrations → administrator → app with the configured roles.
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { registerAuditHook } from './admin/audit-hook.js';
import { registerAdminRoutes } from './admin/routes.js';
import type { AuthBackend } from './auth/backend.js';
import { type BootstrapResult, ensureAdministrator } from './auth/bootstrap.js';
import { registerAuthRoutes } from './auth/routes.js';
import { registerTokenPurge } from './auth/token-purge.js';
import { registerApplier } from './cluster/applier.js';
import { registerClusterFeed } from './cluster/feed-routes.js';
import { registerClusterMetaRoute } from './cluster/meta-routes.js';
import { registerPlacementCheck } from './cluster/placement.js';
import { createReplicaStatus, type ReplicaStatus } from './cluster/replica-status.js';
import { inline, pooled } from './compute/compute.js';
import { ComputePool } from './compute/pool.js';
import { registerGameRoutes } from './config/games-routes.js';
import { registerConfigRoutes } from './config/routes.js';
import type { Context } from './context.js';
import { errors } from './errors.js';
import { createGameChanges } from './game-changes.js';
import { buildApp } from './http/app.js';
import { registerConsole } from './http/console.js';
import { registerConsoleCors } from './http/cors.js';
import { createMetrics } from './metrics/metrics.js';
import { registerMetrics } from './metrics/routes.js';
import { DOCUMENT_WORKER, documentTasks } from './nosql/compute-tasks.js';
import { registerDataAndExports } from './nosql/data-and-exports.js';
import { registerNosqlRoutes } from './nosql/routes.js';
import { registerPlatformLayers } from './platform/platform.js';
import { registerPlayerAdminRoutes } from './players/routes.js';
import type { App, RoleRegistrar } from './route/app.js';
import { registerWithPolicy } from './route/policy.js';
import { registerRuntimeRoutes } from './runtime/routes.js';
import { registerScriptTimers } from './runtime/script-timers.js';
import { registerScriptLogRetention } from './script/log-retention.js';
import { createScriptEngine, DEFAULT_SCRIPT_LIMITS } from './script/run.js';
import type { Settings } from './settings.js';
import { registerSnippetRoutes } from './snippets/routes.js';
import { openStore, ping, type Store, storeOptionsOf } from './store/db.js';
import { migrate } from './store/migrate.js';

/** PORT=0 (tests, benches): the derived URLs learn the port the system picked. */
function adoptEphemeralPort(settings: Settings, port: string): void {
  const fix = (url: string) => url.replace(/:0(?=\/|$)/, `:${port}`);
  settings.publicUrl = fix(settings.publicUrl);
  settings.authUrl = fix(settings.authUrl);
  settings.replica.configUrl = fix(settings.replica.configUrl);
  for (const cluster of Object.values(settings.clusters)) {
    cluster.liveNosql = fix(cluster.liveNosql);
    cluster.previewNosql = fix(cluster.previewNosql);
    if (cluster.internalUrl !== null) cluster.internalUrl = fix(cluster.internalUrl);
  }
}

export interface Server {
  app: App;
  ctx: Context;
  store: Store;
  admin: BootstrapResult;
  /** Base URL the server listens on (after listen()). */
  url: string;
  listen(): Promise<string>;
  /** Starts the compute threads now instead of at the first large request (a process serving for real). */
  warm(): void;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: FastifyBaseLogger;
  clock?: () => number;
  /** An already open store (tests clone one); otherwise opened from the settings. */
  store?: Store;
  /** The store's migrations already ran (main.ts runs them while the server's modules load). */
  migrated?: boolean;
  /** Schema for PostgreSQL (tests); ignored for PGlite. */
  schema?: string;
  /** Registered after the roles (tests add probe routes). */
  extraRegistrars?: RoleRegistrar[];
}

/** The registrars, in order: the authentication layer first, then each role's routes. */
function registrarsFor(settings: Settings, replica: ReplicaStatus | undefined): RoleRegistrar[] {
  let backend: AuthBackend | undefined;
  const registrars: RoleRegistrar[] = [
    (app, ctx) => {
      backend = registerPlatformLayers(app, ctx);
    },
  ];
  if (settings.roles.includes('auth'))
    registrars.push((app, ctx) => registerAuthRoutes(backend as AuthBackend)(app, ctx), registerTokenPurge);
  if (settings.roles.includes('config'))
    registrars.push(registerGameRoutes, registerConfigRoutes, registerAdminRoutes, registerConsole);
  // The audit declarations' check comes with the admin routes; an auth-only process checks its routes too.
  else if (settings.roles.includes('auth')) registrars.push((app) => registerAuditHook(app));
  // The control database's feed for runtime clusters' replicas (docs/topology.md).
  if (settings.roles.includes('auth') || settings.roles.includes('config'))
    registrars.push(registerClusterFeed);
  if (settings.roles.includes('nosql')) {
    // A cluster's replica: its loop, and the 404 for games of other clusters, before the routes it guards.
    registrars.push(
      registerPlacementCheck,
      (app, ctx) => registerApplier(app, ctx, replica),
      registerClusterMetaRoute,
      registerConsoleCors,
    );
    registrars.push(async (app, ctx) => {
      await app.register(async (scope) => registerNosqlRoutes(scope as App, ctx, 'live'), {
        prefix: '/live',
      });
      await app.register(async (scope) => registerNosqlRoutes(scope as App, ctx, 'preview'), {
        prefix: '/preview',
      });
    });
    registrars.push(
      registerDataAndExports,
      registerPlayerAdminRoutes,
      registerScriptLogRetention,
      registerSnippetRoutes,
    );
    registrars.push((app, ctx) =>
      registerWithPolicy(app, { rateClass: 'runtime' }, (scope) => registerRuntimeRoutes(scope, ctx)),
    );
    // Cloud Code's system-script ticks, GS_GAME_PUBLISH runs and scheduled jobs (docs/cloud-code.md).
    registrars.push(registerScriptTimers);
  }
  return registrars;
}

export async function createServer(settings: Settings, options: StartOptions = {}): Promise<Server> {
  const store = options.store ?? (await openStore(storeOptionsOf(settings, options.schema)));
  let migrated = false;
  try {
    if (!options.migrated) await migrate(store.pool);
    migrated = true;
    // A cluster's replica holds the control database's accounts, never one of its own (docs/topology.md).
    const admin =
      settings.replica.cluster === undefined
        ? await ensureAdministrator(store.pool, settings.adminUsername, settings.adminPassword)
        : { created: false, username: settings.adminUsername };
    const https =
      settings.tlsCertFile && settings.tlsKeyFile
        ? { cert: readFileSync(settings.tlsCertFile), key: readFileSync(settings.tlsKeyFile) }
        : undefined;
    // A cluster's replica tells whether it has caught up, and its lag (docs/topology.md).
    const replica =
      settings.replica.cluster === undefined ? undefined : createReplicaStatus(settings.replica.cluster);
    const ready = async () => {
      if (!migrated) throw errors.notReady('Migrations are not done');
      try {
        await ping(store.pool);
      } catch {
        throw errors.storeUnavailable();
      }
      return replica ? { replica: await replica.readiness(store.pool, Date.now()) } : {};
    };
    const threads =
      settings.computeThreads > 0 ? new ComputePool(settings.computeThreads, DOCUMENT_WORKER) : undefined;
    const compute = threads ? pooled(documentTasks, threads) : inline(documentTasks);
    const clock = options.clock ?? Date.now;
    const gameChanges = createGameChanges();
    // Cloud Code: sandbox threads start at the first script (a game with no scripts never starts one).
    const scripts = settings.roles.includes('nosql')
      ? createScriptEngine(
          {
            pool: store.pool,
            compute,
            clock,
            statementTimeoutMs: settings.statementTimeoutMs,
            ddl: { concurrently: store.kind === 'postgres', buildTimeoutMs: 10 * 60 * 1000 },
            http: { allow: settings.scripts.httpAllow },
            gameChanges,
          },
          { ...DEFAULT_SCRIPT_LIMITS, ...settings.scripts },
        )
      : undefined;
    const { app, ctx } = await buildApp(
      {
        settings,
        store,
        clock,
        compute,
        ...(scripts ? { scripts } : {}),
        metrics: createMetrics(store.pool),
        gameChanges,
      },
      {
        observers: [registerMetrics],
        registrars: [...registrarsFor(settings, replica), ...(options.extraRegistrars ?? [])],
        ready,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(https ? { https } : {}),
      },
    );
    const server: Server = {
      app,
      ctx,
      store,
      admin,
      url: settings.publicUrl,
      async listen() {
        const address = await app.listen({ port: settings.port, host: settings.host });
        server.url = address.replace('0.0.0.0', 'localhost');
        if (settings.port === 0) adoptEphemeralPort(settings, new URL(server.url).port);
        return server.url;
      },
      warm() {
        threads?.warm();
        void scripts?.warm();
      },
      async close() {
        await app.close();
        await scripts?.close();
        await threads?.close();
        await store.close();
      },
    };
    return server;
  } catch (e) {
    if (!options.store) await store.close().catch(() => {});
    throw e;
  }
}
