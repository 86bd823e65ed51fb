// Cloud Code that runs without a client request: the system scripts GS_MINUTE, GS_HOURLY, GS_DAILY (on the
// minute, the hour and 00:00 UTC) and GS_GAME_PUBLISH (each save in Preview, each publish in Live), and the jobs
// of Spark.getScheduler(). Every process with the nosql role checks every PLAYBASE_SCRIPT_TIMER_CHECK_MS; each
// tick, publish and job is claimed in the database (src/store/script-timers.ts), so several processes on one
// database run each of them once between them, and a restart loses nothing that is still due.
import type { Context } from '../context.js';
import { startPeriodic } from '../periodic.js';
import type { App } from '../route/app.js';
import {
  claimTicks,
  deleteOldTicks,
  type TimerGame,
  takeDueJobs,
  takePublishRuns,
} from '../store/script-timers.js';
import type { CloudScript } from '../types/config.js';
import type { ScriptRunner } from '../types/script-runner.js';
import { createConfigCache } from './config-cache.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The timed system scripts: each tick is due from its time for `grace` ms. A tick that no process claimed in
 * that window (every process was down) is skipped, never caught up; a later tick runs as usual.
 */
export const TIMED_SCRIPTS = [
  { shortCode: 'GS_MINUTE', period: MINUTE, grace: MINUTE },
  { shortCode: 'GS_HOURLY', period: HOUR, grace: 15 * MINUTE },
  { shortCode: 'GS_DAILY', period: DAY, grace: 15 * MINUTE },
] as const;

/** Ticks, publishes or jobs claimed at once by one process (then run before it claims more). */
const BATCH = 16;
/** Claimed ticks are kept this long, then pruned (they can no longer be claimed). */
const TICK_RETENTION_MS = 2 * DAY;

export interface ScriptTimers {
  /** One check now (after any check in progress): ticks, publish runs and due jobs; resolves when they ran. */
  check(): Promise<void>;
  /** No more checks; resolves when the one in progress ends. */
  stop(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's timer loop (tests drive it with check()); absent without Cloud Code. */
    scriptTimers?: ScriptTimers;
  }
}

export function createScriptTimers(ctx: Context, runner: ScriptRunner): ScriptTimers {
  const pool = ctx.store.pool;
  // Every run reads the stage's current version: a publish's script runs with the configuration just published.
  const configs = createConfigCache({ now: () => performance.now(), maxAgeMs: 0 });
  const lastTick = new Map<string, number>();
  let lastPrune = 0;
  const all = { stage: null };

  /**
   * Runs the script `pick` finds in the stage's configuration; a failure is logged, never thrown. Each run that
   * finds its script is observable as a request's execution is: one line in the server log (info; warn with its
   * scriptErrorId when it failed: no client sees that answer) and playbase_script_timer_runs_total
   * {script = `kind`}; its failure has its script.log entry (run.ts).
   */
  async function run(
    game: TimerGame,
    kind: string,
    pick: (scripts: Map<string, CloudScript>) => CloudScript | undefined,
    more: { data: unknown; playerId: string | null },
  ): Promise<void> {
    const started = performance.now();
    let name: string | undefined;
    try {
      const config = await configs.get(pool, game.game, game.stage);
      const script = config ? pick(config.scripts) : undefined;
      if (!config || !script) return;
      name = `${script.folder}/${script.shortCode}`;
      const out = await runner.run({
        gs: game,
        script,
        modules: config.modules,
        data: more.data,
        playerId: more.playerId,
        scriptData: {},
        errors: {},
      });
      ctx.metrics.scriptTimerRuns.inc({ script: kind, stage: game.stage, outcome: out.outcome });
      const line = {
        game: game.game,
        stage: game.stage,
        kind,
        script: name,
        outcome: out.outcome,
        ms: Math.round(performance.now() - started),
        ...(out.errorId ? { scriptErrorId: out.errorId, error: out.failure?.message } : {}),
      };
      if (out.outcome === 'ok') ctx.log.info(line, 'Cloud Code timer run');
      else ctx.log.warn(line, 'Cloud Code timer run failed');
    } catch (e) {
      ctx.metrics.scriptTimerRuns.inc({ script: kind, stage: game.stage, outcome: 'failed' });
      ctx.log.warn(
        { err: e, game: game.game, stage: game.stage, kind, ...(name ? { script: name } : {}) },
        'a Cloud Code timer run failed',
      );
    }
  }

  const system = (code: string) => (scripts: Map<string, CloudScript>) => scripts.get(`system/${code}`);

  async function ticks(now: number): Promise<void> {
    for (const timer of TIMED_SCRIPTS) {
      const at = Math.floor(now / timer.period) * timer.period;
      if (lastTick.get(timer.shortCode) === at || now - at >= timer.grace) continue;
      const data = { tick: new Date(at).toISOString() };
      for (;;) {
        const claimed = await claimTicks(pool, all, timer.shortCode, {
          at: new Date(at),
          now: new Date(now),
          limit: BATCH,
        });
        await Promise.all(
          claimed.map((g) => run(g, timer.shortCode, system(timer.shortCode), { data, playerId: null })),
        );
        if (claimed.length === 0) break;
      }
      lastTick.set(timer.shortCode, at);
    }
    if (now - lastPrune >= HOUR) {
      await deleteOldTicks(pool, all, new Date(now - TICK_RETENTION_MS));
      lastPrune = now;
    }
  }

  async function publishes(): Promise<void> {
    for (;;) {
      const taken = await takePublishRuns(pool, all, BATCH);
      await Promise.all(
        taken.map((g) => run(g, 'GS_GAME_PUBLISH', system('GS_GAME_PUBLISH'), { data: {}, playerId: null })),
      );
      if (taken.length < BATCH) return;
    }
  }

  async function jobs(now: number): Promise<void> {
    for (;;) {
      const due = await takeDueJobs(pool, all, new Date(now), { limit: BATCH, perGame: BATCH / 4 });
      await Promise.all(
        due.map((job) =>
          run(
            job,
            'scheduler',
            (scripts) => scripts.get(`modules/${job.module}`) ?? missingModule(job.module),
            {
              data: job.data,
              playerId: job.playerId,
            },
          ),
        ),
      );
      if (due.length < BATCH) return;
    }
  }

  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  return {
    check() {
      const next = chain.then(async () => {
        if (stopped) return;
        const now = ctx.clock();
        await publishes();
        await ticks(now);
        await jobs(now);
      });
      chain = next.catch(() => {});
      return next;
    },
    stop() {
      stopped = true;
      return chain;
    },
  };
}

/** A job whose module was deleted since it was scheduled: its run fails with this, in script.log. */
function missingModule(module: string): CloudScript {
  return {
    folder: 'modules',
    shortCode: module,
    script: `throw new Error(${JSON.stringify(`the scheduled module ${module} no longer exists`)});`,
  };
}

/** Starts this process's timer loop with the server, and stops it (after the check in progress) at close. */
export function registerScriptTimers(app: App, ctx: Context): void {
  const everyMs = ctx.settings.scriptTimers.checkMs;
  if (!ctx.scripts || everyMs === 0) return;
  const timers = createScriptTimers(ctx, ctx.scripts);
  app.decorate('scriptTimers', timers);
  const stopLoop = startPeriodic(
    'Cloud Code timers',
    everyMs,
    async () => {
      await timers.check();
      return 0;
    },
    ctx.log,
  );
  app.addHook('onClose', async () => {
    stopLoop();
    await timers.stop();
  });
}
