// Spark.getGameDataService() through the runtime requests API: scripts written the way real games used the data
// service (getItem, then create or change and persist; queries on indexed fields), each asserting the answer and
// the stored items, on the store the run is given (PGlite or PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getItem, putItem } from '../../src/nosql/data-service.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;
let bob: string;

const CONFIG = {
  ...GAME_CONFIG,
  '~indexedTypes': [
    {
      shortCode: 'PlayerState',
      name: 'Player state',
      fields: [
        { name: 'level', type: 'number' },
        { name: 'name', type: 'string' },
      ],
    },
  ],
};

beforeAll(async () => {
  w = await startRuntimeWorld(CONFIG);
  alice = await w.player('alice');
  bob = await w.player('bob');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const score = (playerId: string, extra: Record<string, unknown> = {}) =>
  w.ask('LogEventRequest', { eventKey: 'score', playerId, SCORE: 10, ...extra });

const stored = (id: string, type = 'PlayerState') =>
  getItem(w.server.store.pool, { game: w.apiKey, stage: 'preview', type }, id, Date.now()).catch(() => null);

const STATE_MODULE = script(
  'modules',
  'STATE',
  [
    'var API = Spark.getGameDataService();',
    'function loadState(pid) {',
    '  var r = API.getItem("PlayerState", pid);',
    '  if (r.error()) { Spark.setScriptError("ERROR", r.error()); Spark.exit(); }',
    '  var doc = r.document();',
    '  if (doc === null) { doc = API.createItem("PlayerState", pid); doc.setData({ level: 1, plays: 0, name: "p" + pid }); }',
    '  return doc;',
    '}',
  ].join('\n'),
);

describe('the game data service', () => {
  it('getItem, then create or change the item and persist it', async () => {
    await setScripts(w, [
      STATE_MODULE,
      script(
        'event',
        'score',
        [
          'requireOnce("STATE");',
          'var doc = loadState(Spark.getPlayer().getPlayerId());',
          'doc.getData().plays += 1;',
          'doc.getData().best = Math.max(doc.getData().best || 0, Spark.getData().SCORE);',
          'var r = doc.persistor().persist();',
          'if (r.error()) Spark.setScriptError("ERROR", r.error());',
          'Spark.setScriptData("plays", doc.getData().plays);',
          'Spark.setScriptData("version", doc.getVersion());',
        ].join('\n'),
      ),
    ]);
    expect((await score(alice, { SCORE: 4 })).scriptData).toEqual({ plays: 1, version: 1 });
    expect((await score(alice, { SCORE: 9 })).scriptData).toEqual({ plays: 2, version: 2 });
    const item = await stored(alice);
    expect(item?.data).toEqual({ level: 1, plays: 2, best: 9, name: `p${alice}` });
    expect(item?.version).toBe(2);
  });

  it('queryItems with S/N conditions and a sort walks the matching items in order', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var API = Spark.getGameDataService();',
          'var names = ["ann", "bea", "cid", "dot", "abe"];',
          'for (var i = 0; i < names.length; i++) {',
          '  var it = API.createItem("PlayerState", "q-" + names[i]);',
          '  it.setData({ level: i * 10, name: names[i] });',
          '  it.persistor().persist();',
          '}',
          'function ids(cond, sort) {',
          '  var r = API.queryItems("PlayerState", cond, sort);',
          '  if (r.error()) return r.error();',
          '  var c = r.cursor(), out = [];',
          '  while (c.hasNext()) { var d = c.next(); if (d.getId().indexOf("q-") === 0) out.push(d.getData().name); }',
          '  return out;',
          '}',
          'Spark.setScriptData("gt", ids(API.N("level").gt(15), API.sort("level", false)));',
          'Spark.setScriptData("prefix", ids(API.S("name").startsWith("a"), API.sort("name", true)));',
          'Spark.setScriptData("between", ids(API.N("level").between(10, 30).and(API.S("name").ne("cid")), API.sort("level", true)));',
          'Spark.setScriptData("or", ids(API.S("name").eq("ann").or(API.S("name").eq("dot")), API.sort("name", true)));',
          'Spark.setScriptData("not", ids(API.S("name")["in"](["ann", "bea", "cid"]).negate().and(API.S("name").startsWith("")), API.sort("name", false)));',
          'Spark.setScriptData("unindexed", ids(API.N("plays").gt(1)));',
        ].join('\n'),
      ),
    ]);
    const { scriptData } = await score(bob);
    expect(scriptData.gt).toEqual(['abe', 'dot', 'cid']);
    expect(scriptData.prefix).toEqual(['abe', 'ann']);
    expect(scriptData.between).toEqual(['bea', 'dot']);
    expect(scriptData.or).toEqual(['ann', 'dot']);
    expect(scriptData.not).toEqual(['dot', 'abe']);
    expect(scriptData.unindexed).toMatch(/^DATA_FIELD_NOT_INDEXED: /);
  });

  it('persistors: changed fields only, atomic increments, version and condition checks, overwrite', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var API = Spark.getGameDataService();',
          'var it = API.createItem("PlayerState", "shared"); it.setData({ level: 1, coins: 10, name: "s" }); it.persistor().persist();',
          'var a = API.getItem("PlayerState", "shared").document();',
          'var b = API.getItem("PlayerState", "shared").document();',
          // a and b were read at the same version: b's changed-fields write keeps a's change of another field,
          // b's atomic increment adds to a's.
          'a.getData().coins += 5; a.getData().level = 2; a.persistor().persist();',
          'b.getData().coins += 1; b.getData().name = "t";',
          'var stale = b.persistor().withVersionCheck().persist().error();',
          'var inc = b.persistor().withAtomicIncrements().persist().error();',
          'var after = API.getItem("PlayerState", "shared").document().getData();',
          'var cond = API.getItem("PlayerState", "shared").document();',
          'cond.getData().level = 9;',
          'var refused = cond.persistor().withConditionCheck(API.N("level").eq(1)).persist().error();',
          'var allowed = cond.persistor().withConditionCheck(API.N("level").eq(2)).persist().error();',
          'var fresh = API.createItem("PlayerState", "shared"); fresh.setData({ name: "new" });',
          'fresh.persistor().persist();',
          'var bad = API.createItem("PlayerState", "bad"); bad.setData({ level: "high" });',
          'Spark.setScriptData("r", { stale: stale, inc: inc, after: after, refused: refused, allowed: allowed,',
          '  typeError: bad.persistor().persist().error(), missing: API.getItem("PlayerState", "nobody").document(),',
          '  unknownType: API.getItem("Nope", "x").error() });',
        ].join('\n'),
      ),
    ]);
    const r = (await score(bob)).scriptData.r;
    expect(r.stale).toMatch(/^DATA_VERSION_CONFLICT: /);
    expect(r.inc).toBeNull();
    expect(r.after).toEqual({ level: 2, coins: 16, name: 't' });
    expect(r.refused).toMatch(/^DATA_CONDITION_FAILED: /);
    expect(r.allowed).toBeNull();
    expect(r.typeError).toMatch(/^DATA_FIELD_TYPE_MISMATCH: /);
    expect(r.missing).toBeNull();
    expect(r.unknownType).toMatch(/^DATA_TYPE_NOT_FOUND: /);
    expect((await stored('shared'))?.data).toEqual({ name: 'new' });
    expect(await stored('bad')).toBeNull();
  });

  it("another game's items of a type of the same name are never seen", async () => {
    const other = (await w.ok('POST', '/restv2/games', { name: 'Other game' })).apiKey as string;
    await w.ok('PUT', `/restv2/game/${other}/config`, { '~indexedTypes': CONFIG['~indexedTypes'] });
    const scope = { game: other, stage: 'preview' as const, type: 'PlayerState' };
    const input = { data: { level: 5, name: 'zzz-other' }, ttlSeconds: undefined, versionCheck: undefined };
    await putItem(w.server.store.pool, scope, 'secret', input, Date.now());
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var API = Spark.getGameDataService(), seen = [];',
          'var c = API.queryItems("PlayerState", API.S("name").startsWith("zzz"), null).cursor();',
          'while (c.hasNext()) seen.push(c.next().getId());',
          'Spark.setScriptData("r", { get: API.getItem("PlayerState", "secret").document(), seen: seen });',
        ].join('\n'),
      ),
    ]);
    expect((await score(bob)).scriptData.r).toEqual({ get: null, seen: [] });
    expect((await getItem(w.server.store.pool, scope, 'secret', Date.now())).data).toEqual(input.data);
  });

  it('TTL and delete; a failed execution rolls back its data service writes', async () => {
    await setScripts(w, [
      script(
        'event',
        'score',
        [
          'var API = Spark.getGameDataService();',
          'var t = API.createItem("PlayerState", "ttl"); t.setData({ level: 3 }); t.setTTL(Date.now() + 3600 * 1000);',
          't.persistor().persist();',
          'var g = API.createItem("PlayerState", "gone"); g.persistor().persist();',
          'var del = API.getItem("PlayerState", "gone").document()["delete"]().error();',
          'var again = API.deleteItem("PlayerState", "gone").error();',
          'Spark.setScriptData("ttl", API.getItem("PlayerState", "ttl").document().getTTL() > Date.now());',
          'Spark.setScriptData("del", [del, again]);',
          'if (Spark.getData().SCORE === 666) {',
          '  var x = API.createItem("PlayerState", "doomed"); x.persistor().persist();',
          '  throw new Error("boom");',
          '}',
        ].join('\n'),
      ),
    ]);
    const { scriptData } = await score(alice);
    expect(scriptData.ttl).toBe(true);
    expect(scriptData.del[0]).toBeNull();
    expect(scriptData.del[1]).toMatch(/^DATA_ITEM_NOT_FOUND: /);
    expect((await stored('ttl'))?.expiresAt).toBeGreaterThan(Date.now());
    expect(await stored('gone')).toBeNull();
    const failed = await score(alice, { SCORE: 666 });
    expect(failed.error).toEqual({ SCRIPT: 'ERROR' });
    expect(await stored('doomed')).toBeNull();
  });
});
