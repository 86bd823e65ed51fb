// Cloud Code runs without a client (system scripts, scheduled jobs) are observable as a request's execution is:
// each run is a line of the server log (info, or warn with its scriptErrorId when it failed) and counts in
// playbase_script_timer_runs_total; a failure has its script.log entry. The timer loop is driven with check().
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

interface Line {
  level: number;
  msg: string;
  kind?: string;
  script?: string;
  outcome?: string;
  stage?: string;
  game?: string;
  ms?: number;
  scriptErrorId?: string;
  error?: string;
}

const lines: Line[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text) as Line);
    done();
  },
});

let w: RuntimeWorld;
let alice: string;

beforeAll(async () => {
  w = await startRuntimeWorld(
    GAME_CONFIG,
    { PLAYBASE_SCRIPT_TIMER_CHECK_MS: '60000' },
    { logger: pino({ level: 'info' }, sink) },
  );
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const check = () => (w.server.app.scriptTimers as { check(): Promise<void> }).check();
const runs = () => lines.filter((l) => l.kind !== undefined);

async function counted(labels: Record<string, string>): Promise<number> {
  const metric = w.server.ctx.metrics.registry.getSingleMetric('playbase_script_timer_runs_total');
  const { values } = await (
    metric as unknown as { get(): Promise<{ values: { labels: object; value: number }[] }> }
  ).get();
  const found = values.find((v) => Object.entries(labels).every(([k, x]) => (v.labels as never)[k] === x));
  return found?.value ?? 0;
}

describe('runs of system scripts and scheduled jobs', () => {
  it('a failed GS_GAME_PUBLISH is a warn line with its scriptErrorId, a script.log entry and a count', async () => {
    await check();
    lines.length = 0;
    await w.ok('PUT', `/restv2/game/${w.apiKey}/config/~scripts/system/GS_GAME_PUBLISH`, {
      script: 'throw new Error("publish failed");',
    });
    await check();
    const [line, ...more] = runs();
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 40,
      msg: 'Cloud Code timer run failed',
      game: w.apiKey,
      stage: 'preview',
      kind: 'GS_GAME_PUBLISH',
      script: 'system/GS_GAME_PUBLISH',
      outcome: 'error',
      error: 'Error: publish failed',
    });
    expect(line?.ms).toBeGreaterThanOrEqual(0);
    const logged = await w.find('script.log', { query: { _id: { $oid: line?.scriptErrorId } } });
    expect(logged).toMatchObject([{ script: 'system/GS_GAME_PUBLISH', level: 'ERROR', error: 'ERROR' }]);
    expect(await counted({ script: 'GS_GAME_PUBLISH', stage: 'preview', outcome: 'error' })).toBe(1);
    await w.ok('DELETE', `/restv2/game/${w.apiKey}/config/~scripts/system/GS_GAME_PUBLISH`);
  });

  it('a GS_MINUTE tick and a scheduled job are info lines and counted as ok', async () => {
    await setScripts(w, [
      script('system', 'GS_MINUTE', 'Spark.getLog().info("tick");'),
      script('modules', 'LATER', 'Spark.runtimeCollection("later").insert({ n: 1 });'),
      script('event', 'score', 'Spark.getScheduler().inSeconds("LATER", 30, {});'),
    ]);
    await w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 1 });
    await check();
    lines.length = 0;
    w.server.now.advance(60_000);
    await check();
    const seen = runs().map((l) => [l.level, l.msg, l.kind, l.script, l.outcome, l.scriptErrorId]);
    expect(seen.sort()).toEqual(
      [
        [30, 'Cloud Code timer run', 'GS_MINUTE', 'system/GS_MINUTE', 'ok', undefined],
        [30, 'Cloud Code timer run', 'scheduler', 'modules/LATER', 'ok', undefined],
      ].sort(),
    );
    expect(await counted({ script: 'GS_MINUTE', stage: 'preview', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(await counted({ script: 'scheduler', stage: 'preview', outcome: 'ok' })).toBe(1);
    // A game without the script runs nothing and says nothing: the next tick of this one only.
    lines.length = 0;
    await setScripts(w, []);
    w.server.now.advance(60_000);
    await check();
    expect(runs()).toEqual([]);
  });

  it('the metric is exposed at /metrics', async () => {
    const res = await w.server.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toMatch(
      /playbase_script_timer_runs_total\{script="GS_GAME_PUBLISH",stage="preview",outcome="error"\} 1/,
    );
  });
});
