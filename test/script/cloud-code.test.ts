// Cloud Code through the runtime requests API: a corpus of scripts written the way real games wrote them (issue 17),
// each asserting the answer and the stored data, on the store the run is given (PGlite or PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const score = (playerId: string, extra: Record<string, unknown> = {}, stage?: 'live' | 'preview') =>
  w.ask('LogEventRequest', { eventKey: 'score', playerId, SCORE: 10, ...extra }, stage);

describe('when scripts run', () => {
  it('an event script that only sets scriptData: the answer carries it, the event is recorded', async () => {
    await setScripts(w, [
      script('event', 'score', 'Spark.setScriptData("doubled", Spark.getData().SCORE * 2);'),
    ]);
    const answer = await score(alice, { SCORE: 21 });
    expect(answer).toEqual({ '@class': '.LogEventResponse', scriptData: { doubled: 42 } });
    const [record] = await w.find('HS-runningTotal', { query: { userId: alice } });
    expect(record.SCORE).toBe(21);
  });

  it('request, event and response scripts run in that order and share scriptData', async () => {
    await setScripts(w, [
      script('request', 'LogEventRequest', 'Spark.setScriptData("order", ["request"]);'),
      script(
        'event',
        'score',
        'var o = Spark.getScriptData("order"); o.push("event"); Spark.setScriptData("order", o);',
      ),
      script(
        'response',
        'LogEventResponse',
        'var o = Spark.getScriptData("order"); o.push(Spark.getData()["@class"]); Spark.setScriptData("order", o);',
      ),
    ]);
    const answer = await score(alice);
    expect(answer.scriptData).toEqual({ order: ['request', 'event', '.LogEventResponse'] });
  });

  it('setScriptError + exit rejects the request: no standard processing, nothing after exit', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'if (Spark.getData().SCORE > 1000) {',
          '  Spark.setScriptError("ERROR", "cheater");',
          '  Spark.exit();',
          '}',
          'Spark.setScriptData("checked", true);',
        ].join('\n'),
      ),
    ]);
    const answer = await score(bob, { SCORE: 5000 });
    expect(answer).toEqual({ '@class': '.LogEventResponse', error: { ERROR: 'cheater' } });
    expect(await w.find('HS-runningTotal', { query: { userId: bob } })).toEqual([]);
    expect((await score(bob, { SCORE: 7 })).scriptData).toEqual({ checked: true });
  });

  it('a response script adds to the answer of an authentication', async () => {
    await setScripts(w, [
      script(
        'response',
        'AuthenticationResponse',
        'var p = Spark.getPlayer(); Spark.setScriptData("hello", p.getDisplayName() + "/" + p.getPlayerId());',
      ),
    ]);
    const answer = await w.ask('AuthenticationRequest', { userName: 'alice', password: 'pw-alice' });
    expect(answer.userId).toBe(alice);
    expect(answer.scriptData).toEqual({ hello: `Dr alice/${alice}` });
  });
});

describe('the Spark API', () => {
  it('requireOnce modules define helpers in the script scope; require runs a module again', async () => {
    await setScripts(w, [
      script(
        'modules',
        'UTIL',
        'var loads = (typeof loads === "number" ? loads : 0) + 1;\nfunction twice(x) { return x * 2; }',
      ),
      script('modules', 'MATH', 'requireOnce("UTIL");\nfunction quad(x) { return twice(twice(x)); }'),
      script(
        'event',
        'score',
        'requireOnce("MATH"); requireOnce("UTIL"); Spark.setScriptData("once", loads);\n' +
          'require("UTIL"); Spark.setScriptData("again", loads); Spark.setScriptData("q", quad(3));',
      ),
    ]);
    expect((await score(alice)).scriptData).toEqual({ once: 1, again: 2, q: 12 });
  });

  it('findOne then an upserting update keeps per-player state in a runtime collection', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var pid = Spark.getPlayer().getPlayerId();',
          'var coll = Spark.runtimeCollection("playerState");',
          'var state = coll.findOne({ playerId: pid });',
          'var plays = state === null ? 1 : state.plays + 1;',
          'coll.update({ playerId: pid }, { $set: { plays: plays }, $inc: { total: Spark.getData().SCORE } }, true, false);',
          'Spark.setScriptData("plays", plays);',
        ].join('\n'),
      ),
    ]);
    expect((await score(alice, { SCORE: 3 })).scriptData).toEqual({ plays: 1 });
    expect((await score(alice, { SCORE: 4 })).scriptData).toEqual({ plays: 2 });
    const docs = await w.find('script.playerState', { query: { playerId: alice } });
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ playerId: alice, plays: 2, total: 7 });
  });

  it('cursors sort before they limit, whatever order the script calls them in', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var c = Spark.runtimeCollection("scores");',
          'c.remove({});',
          'c.insert([{ n: "a", s: 5 }, { n: "b", s: 9 }, { n: "c", s: 1 }, { n: "d", s: 7 }]);',
          'var top = c.find({}, { _id: 0 }).sort({ s: -1 }).limit(2).toArray();',
          'var top2 = c.find({}, { _id: 0 }).limit(2).sort({ s: -1 }).toArray();',
          'var cur = c.find({ s: { $gt: 1 } }).sort({ s: 1 }); var seen = [];',
          'while (cur.hasNext()) seen.push(cur.next().n);',
          'Spark.setScriptData("top", top); Spark.setScriptData("top2", top2); Spark.setScriptData("seen", seen);',
          'Spark.setScriptData("count", c.count({ s: { $gte: 5 } }));',
          'Spark.setScriptData("size", c.find().limit(3).size());',
          'Spark.setScriptData("asArray", c.find({ n: "a" }, { _id: 0, n: 1 }));',
        ].join('\n'),
      ),
    ]);
    const sd = (await score(alice)).scriptData;
    expect(sd.top).toEqual([
      { n: 'b', s: 9 },
      { n: 'd', s: 7 },
    ]);
    expect(sd.top2).toEqual(sd.top);
    expect(sd.seen).toEqual(['a', 'd', 'b']);
    expect(sd.count).toBe(3);
    expect(sd.size).toBe(3);
    expect(sd.asArray).toEqual([{ n: 'a' }]);
  });

  it('findAndModify, save and remove', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var c = Spark.runtimeCollection("counters");',
          'var after = c.findAndModify({ _id: "seq" }, null, null, false, { $inc: { v: 1 } }, true, true);',
          'c.save({ _id: "saved", x: 1 });',
          'c.save({ _id: "saved", x: 2 });',
          'c.insert({ _id: "gone" }); c.remove({ _id: "gone" });',
          'Spark.setScriptData("seq", after.v);',
        ].join('\n'),
      ),
    ]);
    expect((await score(alice)).scriptData).toEqual({ seq: 1 });
    expect((await score(alice)).scriptData).toEqual({ seq: 2 });
    const docs = await w.find('script.counters', { sort: { _id: 1 } });
    expect(docs).toEqual([
      { _id: 'saved', x: 2 },
      { _id: 'seq', v: 2 },
    ]);
  });

  it('loadPlayer of an unknown id is null; a known player is loaded with its data', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'Spark.setScriptData("missing", Spark.loadPlayer("000000000000000000000000") === null);',
          'Spark.setScriptData("junk", Spark.loadPlayer("no such player") === null);',
          'var other = Spark.loadPlayer(Spark.getData().OTHER);',
          'Spark.setScriptData("other", other.getUserName());',
          'Spark.setScriptData("alias", Spark.player.getPlayerId() === Spark.data.playerId);',
        ].join('\n'),
      ),
    ]);
    const sd = (await score(alice, { OTHER: bob })).scriptData;
    expect(sd).toEqual({ missing: true, junk: true, other: 'bob', alias: true });
  });

  it('SparkPlayer: scriptData, privateData and currencies persist; debit is false when short', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var p = Spark.getPlayer();',
          'p.setScriptData("level", 3); p.setPrivateData("secret", "s");',
          'p.credit1(100);',
          'Spark.setScriptData("debitOk", p.debit1(30));',
          'Spark.setScriptData("debitShort", p.debit2(1));',
          'Spark.setScriptData("balance", p.getBalance1());',
          'Spark.setScriptData("read", p.getScriptData("level") + p.getPrivateData("secret"));',
        ].join('\n'),
      ),
    ]);
    const sd = (await score(bob)).scriptData;
    expect(sd).toEqual({ debitOk: true, debitShort: false, balance: 70, read: '3s' });
    const details = await w.ask('AccountDetailsRequest', { playerId: bob });
    expect(details.currency1).toBe(70);
    const [doc] = await w.find('player', { query: { userName: 'bob' } });
    expect(doc.scriptData).toEqual({ level: 3 });
    expect(doc.privateData).toEqual({ secret: 's' });
  });

  it('getCache is shared between executions; lockKey is re-entrant; getConfig names the stage', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var cache = Spark.getCache();',
          'var seen = cache.get("table");',
          'if (seen === null) cache.put("table", { cars: ["a", "b"] });',
          'Spark.setScriptData("cached", seen);',
          'Spark.setScriptData("locks", [Spark.lockKey("k", 10), Spark.lockKey("k", 10), Spark.unlockKey("k")]);',
          'Spark.setScriptData("stage", Spark.getConfig().getStage() + ":" + (Spark.getConfig().getApiKey().length > 0));',
          'Spark.setScriptData("left", Spark.getRemainingMilliseconds() > 0);',
        ].join('\n'),
      ),
    ]);
    expect((await score(alice)).scriptData.cached).toBeNull();
    const sd = (await score(alice)).scriptData;
    expect(sd).toEqual({
      cached: { cars: ['a', 'b'] },
      locks: [true, true, true],
      stage: 'preview:true',
      left: true,
    });
  });

  it('getLog writes {ts, level, script, playerId, log} to script.log', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        'var log = Spark.getLog(); log.info("played"); log.debug({ n: 1 }); log.setLevel("WARN"); log.info("hidden");',
      ),
    ]);
    await score(alice);
    const entries = await w.find('script.log', {
      query: { script: 'event/score', playerId: alice },
      sort: { ts: 1 },
    });
    expect(entries.map((e: { level: string; log: unknown }) => [e.level, e.log])).toEqual([
      ['INFO', 'played'],
      ['DEBUG', { n: 1 }],
    ]);
    expect(entries[0].ts.$date).toBeDefined();
  });

  it('meta and system collections are read-only; system players come without password hashes', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var players = Spark.systemCollection("player").find({ userName: "alice" }).toArray();',
          'Spark.setScriptData("hasPassword", players[0].password !== undefined);',
          'Spark.setScriptData("name", players[0].userName);',
          'try { Spark.metaCollection("cars").insert({ a: 1 }); } catch (e) { Spark.setScriptData("meta", String(e.message)); }',
          'try { Spark.systemCollection("player").remove({}); } catch (e) { Spark.setScriptData("system", String(e.message)); }',
        ].join('\n'),
      ),
    ]);
    const sd = (await score(alice)).scriptData;
    expect(sd.hasPassword).toBe(false);
    expect(sd.name).toBe('alice');
    expect(sd.meta).toMatch(/read-only/);
    expect(sd.system).toMatch(/read-only/);
  });
});

describe('failures', () => {
  it('an uncaught error rolls back every write of the execution and answers SCRIPT ERROR with its log entry', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'Spark.runtimeCollection("ledger").insert({ who: Spark.getPlayer().getPlayerId() });',
          'Spark.getPlayer().credit3(5);',
          'Spark.setScriptData("lost", true);',
          'undefinedFunction();',
        ].join('\n'),
      ),
    ]);
    const answer = await score(alice);
    expect(answer.error).toEqual({ SCRIPT: 'ERROR' });
    expect(answer.scriptErrorId).toMatch(/^[0-9a-f]{24}$/);
    expect(answer.scriptErrorMessage).toMatch(/undefinedFunction/);
    expect(answer.scriptErrorAt).toBe('event/score.js:4');
    expect(answer.scriptData).toBeUndefined();
    // The collection's creation was rolled back with its document.
    await expect(w.find('script.ledger')).rejects.toThrow(/404/);
    expect((await w.ask('AccountDetailsRequest', { playerId: alice })).currency3).toBe(0);
    const [entry] = await w.find('script.log', { query: { _id: { $oid: answer.scriptErrorId } } });
    expect(entry).toMatchObject({
      level: 'ERROR',
      script: 'event/score',
      error: 'ERROR',
      at: 'event/score.js:4',
    });
    expect(entry.stack).toMatch(/event\/score\.js:4/);
    // The standard processing did not run either.
    expect(await w.find('HS-runningTotal', { query: { userId: alice, SCORE: 10, LEVEL: 99 } })).toEqual([]);
  });

  it('a script that catches a failed write goes on, and its other writes stay', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var c = Spark.runtimeCollection("unique");',
          'c.insert({ _id: "one" });',
          'try { c.insert({ _id: "one" }); } catch (e) { Spark.setScriptData("dup", true); }',
          'c.insert({ _id: "two" });',
        ].join('\n'),
      ),
    ]);
    expect((await score(alice)).scriptData).toEqual({ dup: true });
    expect((await w.find('script.unique', { sort: { _id: 1 } })).map((d: { _id: string }) => d._id)).toEqual([
      'one',
      'two',
    ]);
  });

  it('?trace=1 in Preview shows the scripts that ran, their store calls, log lines and errors', async () => {
    await setScripts(w, [
      script('event', 'score', 'Spark.getLog().info("hi"); Spark.runtimeCollection("t").findOne({});'),
    ]);
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/preview/rs/${w.credential}/${encodeURIComponent(w.secret)}/LogEventRequest?trace=1`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ eventKey: 'score', playerId: alice, SCORE: 1 }),
    });
    const trace = res.json().trace;
    expect(trace).toHaveLength(1);
    expect(trace[0]).toMatchObject({
      script: 'event/score',
      outcome: 'ok',
      logs: [{ level: 'INFO', log: 'hi' }],
    });
    expect(trace[0].calls.map((c: { op: string }) => c.op)).toEqual(['runtimeCollection(t).find']);
  });
});

describe('stages', () => {
  it('Live runs the published scripts while Preview runs the working copy', async () => {
    await setScripts(w, [script('event', 'score', 'Spark.setScriptData("v", 1);')]);
    await w.publish();
    await setScripts(w, [script('event', 'score', 'Spark.setScriptData("v", 2);')]);
    const liveAlice = await w.player('alice-live', 'live');
    expect((await score(liveAlice, {}, 'live')).scriptData).toEqual({ v: 1 });
    expect((await score(alice)).scriptData).toEqual({ v: 2 });
  });

  it('a revert restores the scripts of the snapshot', async () => {
    await setScripts(w, [script('event', 'score', 'Spark.setScriptData("v", "snapshot");')]);
    const { id } = await w.ok('POST', `/restv2/game/${w.apiKey}/admin/snapshots`, {
      description: 'with scripts',
    });
    await setScripts(w, [script('event', 'score', 'Spark.setScriptData("v", "later");')]);
    expect((await score(alice)).scriptData).toEqual({ v: 'later' });
    await w.ok('POST', `/restv2/game/${w.apiKey}/admin/snapshots/revert/to/${id}`);
    w.server.ctx.gameChanges?.publish([w.apiKey]);
    expect((await score(alice)).scriptData).toEqual({ v: 'snapshot' });
  });
});
