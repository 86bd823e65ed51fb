// Cloud Code without a client request (issue 17): GS_GAME_PUBLISH on each Preview save and each Live publish,
// Spark.getScheduler() (keys, cancel, rollback, bounds), and GS_MINUTE on two servers sharing one database: once
// a minute between them. The servers' clock is the test's; the timer loop is driven with app.scriptTimers.check()
// (the check the loop runs every PLAYBASE_SCRIPT_TIMER_CHECK_MS), so no test waits for real time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { openStore, type Store } from '../../src/store/db.js';
import { claimTicks, takeDueJobs, upsertJob } from '../../src/store/script-timers.js';
import { TEST_DATABASE_URL } from '../harness.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let other: Server;
let otherStore: Store;
let alice: string;

/** A second server on the first one's database, with the same clock. */
async function secondServer(): Promise<Server> {
  const store = w.server.store;
  if (TEST_DATABASE_URL) {
    const { rows } = await store.pool.query<{ s: string }>('SELECT current_schema() AS s');
    otherStore = await openStore({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: '',
      statementTimeoutMs: 10_000,
      schema: rows[0]?.s,
      poolSize: 4,
    });
  } else {
    // PGlite is one database in this process: the second server shares it (and leaves its closing to the first).
    otherStore = { ...store, close: async () => {} };
  }
  const settings = loadSettings({
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'silent',
    PLAYBASE_ADMIN_USERNAME: 'admin@playbase.test',
    PLAYBASE_ADMIN_PASSWORD: 'admin-password-1',
    PLAYBASE_DATA_DIR: '/nonexistent',
    PLAYBASE_SCRIPT_TIMER_CHECK_MS: '60000',
    PLAYBASE_REDIS_KEY_PREFIX: `test-timers-${process.pid}`,
  });
  return createServer(settings, { store: otherStore, clock: () => w.server.now.value });
}

beforeAll(async () => {
  // Checks every minute of real time: the tests drive the checks themselves.
  w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_SCRIPT_TIMER_CHECK_MS: '60000' });
  alice = await w.player('alice');
  other = await secondServer();
}, 60_000);

afterAll(async () => {
  await other?.close();
  await w?.close();
});

const check = () => (w.server.app.scriptTimers as { check(): Promise<void> }).check();
const checkOther = () => (other.app.scriptTimers as { check(): Promise<void> }).check();
const score = (n: number) => w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: n });

describe('GS_GAME_PUBLISH', () => {
  it('runs after each save of the configuration in Preview, and once per publish in Live', async () => {
    const publishScript =
      'Spark.runtimeCollection("published").insert({ stage: Spark.getConfig().getStage(), n: Spark.getData().n === undefined });';
    const put = (folder: string, shortCode: string, source: string) =>
      w.ok('PUT', `/restv2/game/${w.apiKey}/config/~scripts/${folder}/${shortCode}`, { script: source });
    await check(); // whatever earlier writes left
    await put('system', 'GS_GAME_PUBLISH', publishScript);
    await Promise.all([check(), checkOther()]);
    expect(await w.find('script.published', { query: {} })).toHaveLength(1);
    await put('modules', 'HELPERS', 'function helper() { return 1; }');
    await Promise.all([check(), checkOther()]);
    await Promise.all([check(), checkOther()]);
    expect(await w.find('script.published')).toHaveLength(2);
    // A save that leaves the configuration as it was runs nothing.
    await put('modules', 'HELPERS', 'function helper() { return 1; }');
    await Promise.all([check(), checkOther()]);
    expect(await w.find('script.published')).toHaveLength(2);
    expect(await w.find('script.published', {}, 'live').catch(() => [])).toEqual([]);

    await w.publish();
    await Promise.all([check(), checkOther()]);
    await Promise.all([check(), checkOther()]);
    const live = await w.find('script.published', {}, 'live');
    expect(live.map((d: { stage: string }) => d.stage)).toEqual(['live']);
    expect(await w.find('script.published')).toHaveLength(2);
    await w.ok('DELETE', `/restv2/game/${w.apiKey}/config/~scripts/system/GS_GAME_PUBLISH`);
    await w.ok('DELETE', `/restv2/game/${w.apiKey}/config/~scripts/modules/HELPERS`);
  });
});

describe('Spark.getScheduler()', () => {
  const LATER = script(
    'modules',
    'LATER',
    'var p = Spark.getPlayer(); Spark.runtimeCollection("later").insert({ n: Spark.getData().n, player: p && p.getPlayerId() });',
  );

  it('inSeconds runs the module when due, as the scheduling player; a key moves its job; cancel drops it', async () => {
    await setScripts(w, [
      LATER,
      script(
        'event',
        'score',
        [
          'var n = Spark.getData().SCORE, s = Spark.getScheduler();',
          'if (n === 0) s.cancel("job-a");',
          'else Spark.setScriptData("ok", s.inSeconds("LATER", 60, { n: n }, n < 100 ? "job-a" : "job-b"));',
        ].join('\n'),
      ),
    ]);
    expect((await score(1)).scriptData).toEqual({ ok: true });
    expect((await score(2)).scriptData).toEqual({ ok: true });
    w.server.now.advance(59_000);
    await Promise.all([check(), checkOther()]);
    expect(await w.find('script.later').catch(() => [])).toEqual([]);
    w.server.now.advance(2_000);
    await Promise.all([check(), checkOther()]);
    const docs = await w.find('script.later');
    expect(docs.map((d: { n: number; player: string }) => [d.n, d.player])).toEqual([[2, alice]]);

    await score(3); // job-a again
    await score(150); // job-b
    await score(0); // cancels job-a
    w.server.now.advance(61_000);
    await Promise.all([check(), checkOther()]);
    const after = await w.find('script.later', { sort: { n: 1 } });
    expect(after.map((d: { n: number }) => d.n)).toEqual([2, 150]);
  });

  it('a Preview trace names the scheduler calls', async () => {
    await setScripts(w, [
      LATER,
      script(
        'event',
        'score',
        'var s = Spark.getScheduler(); s.inSeconds("LATER", 60, {}, "t"); s.cancel("t");',
      ),
    ]);
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/preview/rs/${w.credential}/${encodeURIComponent(w.secret)}/LogEventRequest?trace=1`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ '@class': '.LogEventRequest', eventKey: 'score', playerId: alice, SCORE: 1 }),
    });
    const calls = res.json().trace[0].calls.map((c: { op: string }) => c.op);
    expect(calls).toEqual(['scheduler.inSeconds', 'scheduler.cancel']);
  });

  it('a pending job survives a restart: the restarted server runs it', async () => {
    await setScripts(w, [
      LATER,
      script(
        'event',
        'score',
        'Spark.getScheduler().inSeconds("LATER", 30, { n: Spark.getData().SCORE }, "r");',
      ),
    ]);
    await score(7);
    await other.close();
    other = await secondServer();
    w.server.now.advance(31_000);
    await checkOther();
    expect(await w.find('script.later', { query: { n: 7 } })).toHaveLength(1);
  });

  it('a script that fails schedules nothing; a bad module or delay is the script error', async () => {
    await setScripts(w, [
      LATER,
      script(
        'event',
        'score',
        [
          'var n = Spark.getData().SCORE, s = Spark.getScheduler();',
          'if (n === 1) { s.inSeconds("LATER", 1, { n: 1000 }); throw new Error("after scheduling"); }',
          'if (n === 2) s.inSeconds("NO_SUCH_MODULE", 1, {});',
          'if (n === 3) s.inSeconds("LATER", -5, {});',
          'if (n === 4) s.inSeconds("LATER", 1e9, {});',
        ].join('\n'),
      ),
    ]);
    expect((await score(1)).error).toEqual({ SCRIPT: 'ERROR' });
    const bad = await score(2);
    expect(bad.scriptErrorMessage).toMatch(/no module NO_SUCH_MODULE/);
    expect((await score(3)).scriptErrorMessage).toMatch(/delay/);
    expect((await score(4)).scriptErrorMessage).toMatch(/delay/);
    w.server.now.advance(5_000);
    await check();
    const found = await w.find('script.later', { query: { n: 1000 } });
    expect(found).toEqual([]);
  });

  it('past 10,000 pending jobs of a game stage, inSeconds answers false; a keyed job still replaces its own', async () => {
    await setScripts(w, [
      LATER,
      script(
        'event',
        'score',
        'var k = Spark.getData().SCORE === 1 ? undefined : "mine"; Spark.setScriptData("ok", Spark.getScheduler().inSeconds("LATER", 3600, {}, k));',
      ),
    ]);
    expect((await score(2)).scriptData).toEqual({ ok: true });
    const due = new Date(w.server.now.value + 7_200_000);
    await w.server.store.pool.query(
      `INSERT INTO script_jobs (api_key, stage, module, data, due_at, created_at)
       SELECT $1, 'preview', 'LATER', '{}', $2, $2 FROM generate_series(1, 9999)`,
      [w.apiKey, due],
    );
    expect((await score(1)).scriptData).toEqual({ ok: false });
    expect((await score(2)).scriptData).toEqual({ ok: true });
    await w.server.store.pool.query('DELETE FROM script_jobs WHERE api_key = $1', [w.apiKey]);
  });

  it('a due job is taken by one process only (FOR UPDATE SKIP LOCKED), a few of one game at a time', async () => {
    const gs = { game: w.apiKey, stage: 'preview' as const };
    const now = new Date(w.server.now.value);
    for (let i = 0; i < 20; i++) {
      await upsertJob(w.server.store.pool, gs, {
        key: null,
        module: 'LATER',
        data: JSON.stringify({ n: i }),
        playerId: null,
        dueAt: now,
        now,
      });
    }
    // One game takes turns with others: at most perGame of its jobs in one take.
    const first = await takeDueJobs(w.server.store.pool, { stage: null }, now, { limit: 15, perGame: 3 });
    expect(first).toHaveLength(3);
    const [a, b] = await Promise.all([
      takeDueJobs(w.server.store.pool, { stage: 'preview' }, now, { limit: 15, perGame: 15 }),
      takeDueJobs(otherStore.pool, { stage: 'preview' }, now, { limit: 15, perGame: 15 }),
    ]);
    const ids = [...a, ...b].map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = await takeDueJobs(w.server.store.pool, { stage: null }, now, { limit: 100, perGame: 100 });
    expect(first.length + ids.length + rest.length).toBe(20);
  });
});

describe('GS_MINUTE on two servers', () => {
  it('runs once per minute between them, with the tick in getData', async () => {
    await setScripts(w, [
      script(
        'system',
        'GS_MINUTE',
        'Spark.runtimeCollection("ticks").update({ _id: "m" }, { $inc: { n: 1 }, $push: { at: Spark.getData().tick } }, true, false);',
      ),
    ]);
    // Whole minutes from here on.
    w.server.now.advance(60_000 - (w.server.now.value % 60_000));
    const minutes: string[] = [];
    for (let i = 0; i < 4; i++) {
      minutes.push(new Date(w.server.now.value).toISOString());
      await Promise.all([check(), checkOther(), check(), checkOther()]);
      expect((await w.find('script.ticks'))[0].n).toBe(i + 1);
      // Later in the same minute: nothing more runs.
      w.server.now.advance(30_000);
      await Promise.all([check(), checkOther()]);
      expect((await w.find('script.ticks'))[0].n).toBe(i + 1);
      w.server.now.advance(30_000);
    }
    const [doc] = await w.find('script.ticks');
    expect(doc.at).toEqual(minutes);
    // Ten minutes with no process checking: the minutes missed are skipped, the current one runs once.
    w.server.now.advance(10 * 60_000 + 5_000);
    await Promise.all([check(), checkOther()]);
    const [later] = await w.find('script.ticks');
    expect(later.n).toBe(5);
    expect(later.at.at(-1)).toBe(new Date(w.server.now.value - 5_000).toISOString());
    await setScripts(w, []);
  });

  it('the claim of a tick is exclusive: concurrent claims share the games out, none twice', async () => {
    await setScripts(w, [script('system', 'GS_HOURLY', '')]);
    const at = new Date('2030-01-01T10:00:00Z');
    const claim = (pool: Store['pool']) =>
      claimTicks(pool, { stage: 'preview' }, 'GS_HOURLY', { at, now: at, limit: 10 });
    const [a, b, c] = await Promise.all([
      claim(w.server.store.pool),
      claim(otherStore.pool),
      claim(w.server.store.pool),
    ]);
    expect([...a, ...b, ...c]).toEqual([{ game: w.apiKey, stage: 'preview' }]);
    expect(await claim(otherStore.pool)).toEqual([]);
    await setScripts(w, []);
  });
});
