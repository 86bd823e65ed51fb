// Nothing of one execution reaches the next (issue 17): one sandbox thread here, so every execution below runs on
// the same thread and QuickJS runtime, one after the other. A first script taints everything it can reach
// (globals, prototypes of built-ins, built-in functions, the Spark objects and their prototypes, the log level);
// the next execution, of the same game or of another game, sees none of it.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_THREAD_NICENESS } from '../../src/script/realm.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_SCRIPT_THREADS: '1' });
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const TAINT = [
  'globalThis.leak = Spark.getData().SCORE; var leakVar = 1; let leakLet = 1; function leakFn() {}',
  'Array.prototype.leak = 1; Object.prototype.leakObj = 1; Function.prototype.leakFn = 1;',
  'JSON.parse = function () { return "hijacked"; }; String.prototype.trim = function () { return "hijacked"; };',
  'Math.random = function () { return 4; }; Date.now = function () { return 0; };',
  'Object.getPrototypeOf(Spark.runtimeCollection("x").find({})).leakCursor = 1;',
  'Object.getPrototypeOf(Spark.runtimeCollection("x")).leakCollection = 1;',
  // The API's own calls do not go through what a script can replace (Spark.getLog below still works).
  'Reflect.apply = function () { throw new Error("hijacked"); };',
  // Parts of the API compiled at their first use: compiled again, untouched, in the next execution.
  'Spark.getCache().leakCache = 1; Spark.getGameDataService().leakData = 1;',
  'Object.getPrototypeOf(Spark.runtimeCollection("x")).distinct.leakMore = 1;',
  'Spark.getLog().setLevel("ERROR"); Spark.getLog().leakLog = 1; Spark.getConfig().leakConfig = 1;',
  'try { Spark.leakSpark = 1; } catch (e) {}',
  'Spark.setScriptData("tainted", true);',
].join('\n');

const PROBE = [
  'var seen = [];',
  'if (typeof leak !== "undefined") seen.push("global");',
  'if (typeof leakVar !== "undefined") seen.push("var");',
  'if (typeof leakLet !== "undefined") seen.push("let");',
  'if (typeof leakFn !== "undefined") seen.push("function");',
  'if ([].leak !== undefined) seen.push("Array.prototype");',
  'if (({}).leakObj !== undefined) seen.push("Object.prototype");',
  'if ((function () {}).leakFn !== undefined) seen.push("Function.prototype");',
  'if (JSON.parse("1") !== 1) seen.push("JSON.parse");',
  'if (" a ".trim() !== "a") seen.push("String.prototype.trim");',
  'if (Math.random() === 4) seen.push("Math.random");',
  'if (Date.now() === 0) seen.push("Date.now");',
  'if (Object.getPrototypeOf(Spark.runtimeCollection("x").find({})).leakCursor) seen.push("cursor");',
  'if (Object.getPrototypeOf(Spark.runtimeCollection("x")).leakCollection) seen.push("collection");',
  'if (String(Reflect.apply).indexOf("hijacked") >= 0) seen.push("Reflect.apply");',
  'if (Spark.getCache().leakCache || Spark.getGameDataService().leakData) seen.push("lazy library");',
  'if (Object.getPrototypeOf(Spark.runtimeCollection("x")).distinct.leakMore) seen.push("collection calls");',
  'if (Spark.getLog().getLevel() !== "DEBUG" || Spark.getLog().leakLog) seen.push("log");',
  'if (Spark.getConfig().leakConfig || Spark.leakSpark) seen.push("Spark");',
  'if (Spark.getScriptData("tainted") !== null) seen.push("scriptData");',
  'Spark.setScriptData("seen", seen);',
].join('\n');

/** A second game on the same server (and so the same sandbox thread) with one event script. */
async function otherGame(source: string) {
  const created = await w.ok('POST', '/restv2/games', { name: 'Other game' });
  const apiKey = created.apiKey as string;
  await w.ok('PUT', `/restv2/game/${apiKey}/config`, {
    ...GAME_CONFIG,
    '~credentials': [{ name: 'server' }],
  });
  const { secret } = await w.ok('POST', `/restv2/game/${apiKey}/config/~credentials/server/resetSecret`);
  await setScripts({ ...w, apiKey } as RuntimeWorld, [script('event', 'score', source)]);
  const rs = async (name: string, body: unknown) =>
    (
      await w.server.app.inject({
        method: 'POST',
        url: `/preview/rs/${apiKey}.server/${encodeURIComponent(secret)}/${name}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      })
    ).json();
  const reg = await rs('RegistrationRequest', { userName: 'z', password: 'pw-z' });
  return () => rs('LogEventRequest', { eventKey: 'score', playerId: reg.userId, SCORE: 2 });
}

describe('isolation between executions', () => {
  it('a tainting script leaves nothing for the next execution of its game, or of another game', async () => {
    const probeOther = await otherGame(PROBE);
    await setScripts(w, [script('event', 'score', TAINT)]);
    const score = () => w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 1 });
    // The tainting script ran to its end (its own changes worked), twice: a second run is not refused either.
    expect((await score()).scriptData).toEqual({ tainted: true });
    expect((await score()).scriptData).toEqual({ tainted: true });
    expect((await probeOther()).scriptData).toEqual({ seen: [] });
    await setScripts(w, [script('event', 'score', PROBE)]);
    expect((await score()).scriptData).toEqual({ seen: [] });
  });

  it('a context made ahead, while the thread waited, serves the next execution with its own data only', async () => {
    // One thread: each execution below runs on the context the thread made after the one before (its prelude
    // evaluated before the request was known), including after an exit and a timeout.
    const bob = await w.player('bob');
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var d = Spark.getData();',
          'Spark.setScriptData("seen", { score: d.SCORE, player: Spark.getPlayer().getPlayerId(), key: Spark.getConfig().getApiKey() });',
          'if (d.SCORE === 2) Spark.exit();',
          'if (d.SCORE === 3) for (;;) {}',
        ].join('\n'),
      ),
    ]);
    const score = (playerId: string, SCORE: number) =>
      w.ask('LogEventRequest', { eventKey: 'score', playerId, SCORE });
    const seen = (playerId: string, score: number) => ({ seen: { score, player: playerId, key: w.apiKey } });
    expect((await score(alice, 1)).scriptData).toEqual(seen(alice, 1));
    expect((await score(bob, 2)).scriptData).toEqual(seen(bob, 2));
    expect((await score(alice, 4)).scriptData).toEqual(seen(alice, 4));
    expect((await score(bob, 3)).error).toEqual({ SCRIPT: 'TIMEOUT' });
    expect((await score(bob, 5)).scriptData).toEqual(seen(bob, 5));
  }, 30_000);

  it('no network API exists in the sandbox: no fetch, XMLHttpRequest, WebSocket or Node module', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var out = { fetch: typeof fetch, xhr: typeof XMLHttpRequest, ws: typeof WebSocket, net: typeof net };',
          'try { require("http"); out.requireHttp = "loaded"; } catch (e) { out.requireHttp = "refused"; }',
          'try { require("node:net"); out.requireNet = "loaded"; } catch (e) { out.requireNet = "refused"; }',
          // Spark.getHttp, where it exists, reaches only hosts of PLAYBASE_SCRIPT_HTTP_ALLOW (none by default).
          'if (typeof Spark.getHttp === "function") {',
          '  try { Spark.getHttp("http://127.0.0.1:9/").get(); out.http = "reached"; } catch (e) { out.http = "refused"; }',
          '} else out.http = "refused";',
          'Spark.setScriptData("out", out);',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 1 });
    expect(answer.scriptData?.out ?? answer).toMatchObject({
      fetch: 'undefined',
      xhr: 'undefined',
      ws: 'undefined',
      net: 'undefined',
      requireHttp: 'refused',
      requireNet: 'refused',
      http: 'refused',
    });
  });

  it.runIf(process.platform === 'linux')(
    'the sandbox thread runs at the lowest priority, below the event loop',
    async () => {
      await setScripts(w, [script('event', 'score', 'Spark.setScriptData("ok", true);')]);
      await w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 1 });
      // Linux keeps a nice value per thread: field 19 of each thread's stat line.
      const nices = readdirSync('/proc/self/task').map((t) => {
        const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
      expect(nices).toContain(SANDBOX_THREAD_NICENESS);
    },
  );
});
