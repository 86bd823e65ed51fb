// Requests sent from scripts (SparkRequests.<Request>.Send / SendAs, Spark.sendRequest / sendRequestAs /
// logEvent) through the runtime requests API, the way real games sent them: they run the request's standard
// processing in the execution's transaction, without the request's own scripts; on PGlite or PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_REQUESTS } from '../../src/runtime/request-schemas.js';
import { SENDABLE } from '../../src/script/host-requests.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG);
  alice = await w.player('alice');
  bob = await w.player('bob');
  carol = await w.player('carol');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const board = async () =>
  (
    (await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'HSLB', playerId: alice })).data as {
      userId: string;
      SCORE: number;
    }[]
  ).map((e) => [e.userId, e.SCORE]);

// An event script that would count its runs: a request sent from a script must not run it.
const COUNTING = script('event', 'score', 'Spark.runtimeCollection("ran").insert({ at: Date.now() });');

describe('requests sent from scripts', () => {
  it('every request of the runtime API can be sent from a script', () => {
    expect(Object.keys(SENDABLE).sort()).toEqual(Object.keys(RUNTIME_REQUESTS).sort());
  });

  it('Send, SendAs, sendRequest, sendRequestAs and logEvent run the request without its scripts', async () => {
    await setScripts(w, [
      COUNTING,
      script(
        'request',
        'AccountDetailsRequest',
        [
          'var req = new SparkRequests.LogEventRequest();',
          'req.eventKey = "score"; req.SCORE = 77;',
          'var a = req.Send();',
          `var b = Spark.sendRequestAs({ "@class": ".LogEventRequest", eventKey: "score", SCORE: 55 }, "${bob}");`,
          'var lb = new SparkRequests.LeaderboardDataRequest();',
          'lb.leaderboardShortCode = "HSLB"; lb.entryCount = 10;',
          'var top = [], d = lb.Send().data;',
          'for (var i = 0; i < d.length; i++) top.push([d[i].userId, d[i].SCORE]);',
          'var bad = Spark.sendRequest({ "@class": ".LogEventRequest", eventKey: "nope" });',
          'Spark.logEvent("score", { SCORE: 80 });',
          'var unknown, noClass;',
          'try { Spark.sendRequest({ "@class": ".FooRequest" }); } catch (e) { unknown = e.message; }',
          'try { Spark.sendRequest({ eventKey: "score" }); } catch (e) { noClass = e.message; }',
          'var details = new SparkRequests.AccountDetailsRequest().SendAs(Spark.getData().playerId);',
          'Spark.setScriptData("r", { a: a, b: b, top: top, bad: bad, unknown: unknown.slice(0, 38),',
          '  noClass: noClass.slice(0, 27), name: details.displayName, cls: details["@class"] });',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    expect(answer.scriptData.r).toEqual({
      a: { '@class': '.LogEventResponse' },
      b: { '@class': '.LogEventResponse' },
      top: [
        [alice, 77],
        [bob, 55],
      ],
      bad: { '@class': '.LogEventResponse', error: { eventKey: 'INVALID' } },
      unknown: 'no runtime request .FooRequest (one of',
      noClass: 'no runtime request undefine',
      name: 'Dr alice',
      cls: '.AccountDetailsResponse',
    });
    expect(await board()).toEqual([
      [alice, 80],
      [bob, 55],
    ]);
    // The event script never ran (its collection does not exist); it runs for a client's LogEventRequest.
    await expect(w.find('script.ran')).rejects.toThrow(/404/);
    await w.ask('LogEventRequest', { eventKey: 'score', playerId: bob, SCORE: 1 });
    expect(await w.find('script.ran')).toHaveLength(1);
  });

  it('a failed execution rolls back the requests it sent', async () => {
    await setScripts(w, [
      script(
        'request',
        'AccountDetailsRequest',
        [
          `Spark.sendRequestAs({ "@class": ".LogEventRequest", eventKey: "score", SCORE: 99 }, "${carol}");`,
          'throw new Error("after sending");',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('AccountDetailsRequest', { playerId: alice });
    expect(answer.error).toEqual({ SCRIPT: 'ERROR' });
    expect((await board()).map(([id]) => id)).not.toContain(carol);
  });

  it('a script without a player cannot sendRequest, and can sendRequestAs', async () => {
    await setScripts(w, [
      script(
        'request',
        'RegistrationRequest',
        [
          'var refused;',
          'try { Spark.sendRequest({ "@class": ".LogEventRequest", eventKey: "score", SCORE: 1 }); } catch (e) { refused = e.message; }',
          `var sent = Spark.sendRequestAs({ "@class": ".LogEventRequest", eventKey: "score", SCORE: 3 }, "${carol}");`,
          'Spark.setScriptData("r", { player: Spark.getPlayer(), refused: refused, sent: sent });',
        ].join('\n'),
      ),
    ]);
    const answer = await w.ask('RegistrationRequest', {
      userName: 'dave',
      password: 'pw-dave',
      displayName: 'D',
    });
    expect(answer.scriptData.r).toEqual({
      player: null,
      refused: 'this script has no player to send the request as: use sendRequestAs or SendAs',
      sent: { '@class': '.LogEventResponse' },
    });
    expect(await board()).toContainEqual([carol, 3]);
  });
});
