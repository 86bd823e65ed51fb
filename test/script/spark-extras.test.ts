// Smaller parts of the Spark API through the runtime requests API: loadPlayerByExternalId, collection indexes the
// way GS_GAME_PUBLISH scripts made them (getIndexInfo, then ensureIndex; dropIndex), and getDigester, each
// asserting the answer and what is stored, on PGlite or PostgreSQL.
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idKey, ObjectId } from '../../src/query/values.js';
import { readDoc, writeDoc } from '../../src/store/runtime-documents.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { runEventScript } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG);
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const run = (lines: string[]) => runEventScript(w, alice, lines);

describe('Spark.loadPlayerByExternalId', () => {
  it('finds the player holding that external id of that system, else null; a bad system name is an error', async () => {
    const gs = { game: w.apiKey, stage: 'preview' as const };
    const pool = w.server.store.pool;
    const stored = await readDoc(pool, gs, 'player', idKey(ObjectId.createFromHexString(alice)));
    if (!stored) throw new Error('alice has no player document');
    await writeDoc(pool, gs, 'player', { ...stored, externalIds: { FB: 'fb-1', GC: 'G:77' } });
    const answer = await run([
      'var p = Spark.loadPlayerByExternalId("FB", "fb-1");',
      'var bad; try { Spark.loadPlayerByExternalId("a.b", "x"); } catch (e) { bad = e.message; }',
      'Spark.setScriptData("r", { id: p && p.getPlayerId(), name: p && p.getDisplayName(),',
      '  ids: p && p.getExternalIds(), other: Spark.loadPlayerByExternalId("GC", "G:77").getPlayerId(),',
      '  none: Spark.loadPlayerByExternalId("FB", "nobody"), wrongSystem: Spark.loadPlayerByExternalId("TW", "fb-1"),',
      '  bad: bad });',
    ]);
    expect(answer.scriptData.r).toEqual({
      id: alice,
      name: 'Dr alice',
      ids: { FB: 'fb-1', GC: 'G:77' },
      other: alice,
      none: null,
      wrongSystem: null,
      bad: 'an external system is 1 to 32 letters, digits or _',
    });
  });
});

describe('collection indexes', () => {
  it('getIndexInfo, ensureIndex (default and given names, unique), dropIndex by keys and by name', async () => {
    const made = await run([
      'var coll = Spark.runtimeCollection("races");',
      'function names() { var n = [], info = coll.getIndexInfo(); for (var i = 0; i < info.length; i++) n.push(info[i].name); return n; }',
      'var before = names();',
      'if (before.indexOf("playerId_1_time_-1") < 0) coll.ensureIndex({ playerId: 1, time: -1 });',
      'coll.ensureIndex({ raceId: 1 }, { name: "byRace", unique: true });',
      'coll.ensureIndex({ raceId: 1 }, { name: "byRace", unique: true });',
      'var meta; try { Spark.metaCollection("cars").ensureIndex({ a: 1 }); } catch (e) { meta = e.message; }',
      'Spark.setScriptData("r", { before: before, after: names(), info: coll.getIndexInfo()[2], meta: meta });',
    ]);
    expect(made.scriptData.r).toEqual({
      before: ['_id_'],
      after: ['_id_', 'playerId_1_time_-1', 'byRace'],
      info: { v: 2, key: { raceId: 1 }, name: 'byRace', unique: true },
      meta: 'the meta collection cars is read-only in scripts',
    });

    const unique = await run([
      'var coll = Spark.runtimeCollection("races"), dup = null;',
      'coll.insert({ raceId: 7 });',
      'try { coll.insert({ raceId: 7 }); } catch (e) { dup = e.message; }',
      'Spark.setScriptData("dup", dup);',
    ]);
    expect(unique.scriptData.dup).toMatch(/byRace/);
    expect(await w.find('script.races', { query: { raceId: 7 } })).toHaveLength(1);

    const dropped = await run([
      'var coll = Spark.runtimeCollection("races"), missing = null;',
      'coll.dropIndex({ playerId: 1, time: -1 });',
      'coll.dropIndexByName("byRace");',
      'try { coll.dropIndex({ nope: 1 }); } catch (e) { missing = e.message; }',
      'var n = [], info = coll.getIndexInfo(); for (var i = 0; i < info.length; i++) n.push(info[i].name);',
      'Spark.setScriptData("r", { names: n, missing: missing });',
    ]);
    expect(dropped.scriptData.r).toEqual({
      names: ['_id_'],
      missing: 'no index with keys {"nope":1} on script.races',
    });
  });
});

describe('Spark.getDigester', () => {
  it('hashes and HMACs of UTF-8 text, in hex and base64', async () => {
    const answer = await run([
      'var d = Spark.getDigester();',
      'Spark.setScriptData("r", [d.md5Hex("héllo"), d.sha1Base64("abc"), d.sha256Hex(""), d.sha512Base64("x"),',
      '  d.hmacSha256Hex("key", "The quick brown fox"), d.hmacSha1Base64("k", "v"), Spark.digester === d]);',
    ]);
    const hash = (alg: string, v: string, enc: 'hex' | 'base64') =>
      createHash(alg).update(v, 'utf8').digest(enc);
    expect(answer.scriptData.r).toEqual([
      hash('md5', 'héllo', 'hex'),
      hash('sha1', 'abc', 'base64'),
      hash('sha256', '', 'hex'),
      hash('sha512', 'x', 'base64'),
      createHmac('sha256', 'key').update('The quick brown fox').digest('hex'),
      createHmac('sha1', 'k').update('v').digest('base64'),
      true,
    ]);
  });
});
