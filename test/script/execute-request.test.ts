// Requests executed from scripts with their own Cloud Code (SparkRequests.<Request>.Execute / ExecuteAs): the
// request's, event's and response's scripts run as for a client's request, nested in the calling execution (its
// thread, its time budget, a savepoint of its transaction); on PGlite or PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXECUTE_DEPTH } from '../../src/script/host-requests.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;
let bob: string;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG);
  alice = await w.player('alice');
  bob = await w.player('bob');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const scores = async () =>
  Object.fromEntries(
    (
      (await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'HSLB', playerId: alice })).data as {
        userId: string;
        SCORE: number;
      }[]
    ).map((e) => [e.userId, e.SCORE]),
  );

describe('SparkRequests.<Request>.Execute and ExecuteAs', () => {
  it("run the request's, event's and response's scripts, as the player given, with their own scriptData", async () => {
    await setScripts(w, [
      script(
        'request',
        'LogEventRequest',
        'Spark.setScriptData("request", Spark.getPlayer().getPlayerId()); Spark.setScriptData("seen", Spark.getScriptData("caller"));',
      ),
      script(
        'event',
        'score',
        'Spark.runtimeCollection("executed").insert({ by: Spark.getPlayer().getPlayerId(), score: Spark.getData().SCORE });',
      ),
      script('response', 'LogEventResponse', 'Spark.setScriptData("response", Spark.getData()["@class"]);'),
      script(
        'request',
        'AccountDetailsRequest',
        [
          'Spark.setScriptData("caller", "mine");',
          'var req = new SparkRequests.LogEventRequest();',
          'req.eventKey = "score"; req.SCORE = 40; req.requestId = "r1";',
          'var mine = req.Execute();',
          'req.SCORE = 30;',
          `var his = req.ExecuteAs("${bob}");`,
          'var sent = req.Send();',
          'Spark.setScriptData("r", { mine: mine, his: his, sent: sent });',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    expect(answer.scriptData?.caller, JSON.stringify(answer)).toBe('mine');
    expect(answer.scriptData.r).toEqual({
      mine: {
        '@class': '.LogEventResponse',
        requestId: 'r1',
        scriptData: { request: alice, seen: null, response: '.LogEventResponse' },
      },
      his: {
        '@class': '.LogEventResponse',
        requestId: 'r1',
        scriptData: { request: bob, seen: null, response: '.LogEventResponse' },
      },
      // Send runs none of the scripts.
      sent: { '@class': '.LogEventResponse', requestId: 'r1' },
    });
    const executed = (await w.find('script.executed')).map((d) => [d.by, d.score]);
    expect(executed.sort()).toEqual(
      [
        [alice, 40],
        [bob, 30],
      ].sort(),
    );
    expect(await scores()).toMatchObject({ [alice]: 40, [bob]: 30 });
  });

  it("an error set by the request's script rejects it before its processing, as for a client", async () => {
    await setScripts(w, [
      script('request', 'LogEventRequest', 'Spark.setScriptError("NOPE", Spark.getData().SCORE);'),
      script(
        'request',
        'AccountDetailsRequest',
        [
          'var req = new SparkRequests.LogEventRequest();',
          'req.eventKey = "score"; req.SCORE = 92;',
          'Spark.setScriptData("answer", req.Execute());',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    expect(answer.scriptData.answer).toEqual({ '@class': '.LogEventResponse', error: { NOPE: 92 } });
    expect(await scores()).toMatchObject({ [alice]: 40 });
  });

  it("a failing nested script fails that request alone and undoes its writes; the caller's stay", async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        'Spark.runtimeCollection("nested").insert({ n: 1 }); throw new Error("nested failure");',
      ),
      script(
        'request',
        'AccountDetailsRequest',
        [
          'Spark.runtimeCollection("caller").insert({ before: true });',
          'var req = new SparkRequests.LogEventRequest();',
          'req.eventKey = "score"; req.SCORE = 93;',
          'var a = req.Execute();',
          'Spark.runtimeCollection("caller").insert({ after: true, seen: Spark.runtimeCollection("nested").count() });',
          'Spark.setScriptData("answer", a);',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    const nested = answer.scriptData.answer;
    expect(nested).toMatchObject({
      '@class': '.LogEventResponse',
      error: { SCRIPT: 'ERROR' },
      scriptErrorMessage: 'Error: nested failure',
      scriptErrorAt: 'event/score.js:1',
    });
    expect(await w.find('script.nested').catch(() => [])).toEqual([]);
    expect((await w.find('script.caller')).map((d) => d.seen ?? 'before')).toEqual(['before', 0]);
    expect(await scores()).toMatchObject({ [alice]: 40 });
    // The nested failure has its script.log entry, written once the caller's transaction ended.
    const logged = await w.find('script.log', { query: { _id: { $oid: nested.scriptErrorId } } });
    expect(logged).toMatchObject([
      { script: 'event/score', level: 'ERROR', error: 'ERROR', playerId: alice },
    ]);
  });

  it("the caller's failure rolls back what the executed requests and their scripts wrote", async () => {
    await setScripts(w, [
      script('event', 'score', 'Spark.runtimeCollection("rolled").insert({ n: 1 });'),
      script(
        'request',
        'AccountDetailsRequest',
        [
          `var req = new SparkRequests.LogEventRequest(); req.eventKey = "score"; req.SCORE = 94;`,
          `req.ExecuteAs("${bob}");`,
          'throw new Error("caller failure");',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    expect(answer.error).toEqual({ SCRIPT: 'ERROR' });
    expect(await w.find('script.rolled').catch(() => [])).toEqual([]);
    expect(await scores()).toMatchObject({ [bob]: 30 });
  });

  it('a script that executes itself ends at the depth limit with a clear error', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var level = Spark.getData().SCORE;',
          'var req = new SparkRequests.LogEventRequest();',
          'req.eventKey = "score"; req.SCORE = level + 1;',
          'var inner = req.Execute();',
          'Spark.setScriptData("level", level); Spark.setScriptData("inner", inner);',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 0 });
    let at = answer;
    for (let level = 0; level < MAX_EXECUTE_DEPTH; level++) {
      expect(at.scriptData.level).toBe(level);
      at = at.scriptData.inner;
    }
    expect(at).toMatchObject({ '@class': '.LogEventResponse', error: { SCRIPT: 'ERROR' } });
    expect(at.scriptErrorMessage).toBe(
      `Error: Execute: requests run with their scripts nest at most ${MAX_EXECUTE_DEPTH} deep (a script that executes a request whose scripts execute requests...): use Send for the innermost`,
    );
    expect(at.scriptErrorAt).toBe('event/score.js:4');
  });

  it("an executed request's scripts spend the caller's time budget", async () => {
    await setScripts(w, [
      script('event', 'score', 'while (true) {}'),
      script(
        'request',
        'AccountDetailsRequest',
        [
          'var req = new SparkRequests.LogEventRequest(); req.eventKey = "score"; req.SCORE = 1;',
          'var a = req.Execute();',
          'Spark.runtimeCollection("late").insert({ a: a });',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    // One budget for both, not one each: with its own, the caller would have gone on past the nested TIMEOUT.
    expect(answer.error).toEqual({ SCRIPT: 'TIMEOUT' });
    expect(await w.find('script.late').catch(() => [])).toEqual([]);
  });
});
