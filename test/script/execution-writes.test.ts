// The writes of one execution on its transaction (src/store/execution-transaction.ts): the first write opens it,
// each write is undone alone when it fails (whichever write it is, and inside or outside a core function's own
// transaction), and the execution commits or rolls back as a whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const ids = async (collection: string) =>
  (await w.find(collection, { sort: { _id: 1 } })).map((d: { _id: unknown }) => d._id);

describe("an execution's writes", () => {
  it('a first write that fails is undone alone: the collection is created by the next write', async () => {
    const answer = await run([
      'var c = Spark.runtimeCollection("firstFails");',
      'try { c.insert([{ _id: 1 }, { _id: 1 }]); } catch (e) { Spark.setScriptData("failed", true); }',
      'c.insert({ _id: 2 });',
      'Spark.setScriptData("n", c.count({}));',
    ]);
    expect(answer.scriptData).toEqual({ failed: true, n: 1 });
    // Listed and readable: the failed write's rollback took its creation of the collection with it, and the
    // second write created it again.
    expect(await ids('script.firstFails')).toEqual([2]);
  });

  it('failures between writes, in updates and findAndModify (core transactions), undo only themselves', async () => {
    const answer = await run([
      'var c = Spark.runtimeCollection("mixed");',
      'c.insert({ _id: "a", n: 1 });',
      'var errors = 0;',
      'try { c.update({ _id: "a" }, { $inc: { n: "x" } }); } catch (e) { errors++; }',
      'c.update({ _id: "a" }, { $inc: { n: 1 } });',
      'try { c.findAndModify({ _id: "a" }, { $set: { n: {} }, $inc: { n: 1 } }); } catch (e) { errors++; }',
      'try { c.insert({ _id: "a" }); } catch (e) { errors++; }',
      'c.update({ _id: "b" }, { $set: { n: 5 } }, true, false);',
      'c.findAndModify({ _id: "a" }, { $inc: { n: 10 } });',
      'Spark.setScriptData("errors", errors);',
    ]);
    expect(answer.scriptData).toEqual({ errors: 3 });
    const docs = await w.find('script.mixed', { sort: { _id: 1 } });
    expect(docs).toEqual([
      { _id: 'a', n: 12 },
      { _id: 'b', n: 5 },
    ]);
  });

  it('an execution that fails after several writes and a caught failure rolls all of them back', async () => {
    const answer = await run([
      'var c = Spark.runtimeCollection("allOrNothing");',
      'c.insert({ _id: 1 });',
      'try { c.insert({ _id: 1 }); } catch (e) {}',
      'c.insert({ _id: 2 });',
      'Spark.getPlayer().setScriptData("touched", true);',
      'throw new Error("late");',
    ]);
    expect(answer.error).toEqual({ SCRIPT: 'ERROR' });
    await expect(w.find('script.allOrNothing')).rejects.toThrow(/404/);
    const [player] = await w.find('player', { query: { _id: alice } });
    expect(player?.scriptData?.touched).toBeUndefined();
  });

  it('a write that adds no document records no collection; an upserting update and an insert do', async () => {
    const answer = await run([
      'var ghost = Spark.runtimeCollection("ghost");',
      'ghost.update({ _id: 1 }, { $set: { n: 1 } });',
      'ghost.remove({ _id: 1 });',
      'var found = ghost.findAndModify({ _id: 1 }, { $set: { n: 1 } });',
      'Spark.runtimeCollection("upserted").update({ _id: 1 }, { $set: { n: 1 } }, true, false);',
      'Spark.runtimeCollection("upserted").update({ _id: 1 }, { $inc: { n: 1 } });',
      'Spark.runtimeCollection("inserted").insert({ _id: 2 });',
      'Spark.setScriptData("found", found);',
    ]);
    expect(answer.scriptData).toEqual({ found: null });
    // As MongoDB: an update that matched nothing (without upsert) or a remove does not create the collection.
    await expect(w.find('script.ghost')).rejects.toThrow(/404/);
    expect(await w.find('script.upserted')).toEqual([{ _id: 1, n: 2 }]);
    expect(await ids('script.inserted')).toEqual([2]);
  });

  it("a read after the execution's own write of an array finds it, with what the pool knew before", async () => {
    // The first execution has the pool learn that "tags" holds no array; the second writes one and reads it on its
    // transaction, which compiles with what the pool knows: the statement's guard sees its own write.
    const first = await run([
      'var c = Spark.runtimeCollection("tagged");',
      'c.insert({ _id: 1, tags: "x" });',
      'Spark.setScriptData("n", c.find({ tags: "x" }).count());',
    ]);
    expect(first.scriptData).toEqual({ n: 1 });
    const second = await run([
      'var c = Spark.runtimeCollection("tagged");',
      'c.insert({ _id: 2, tags: ["a", "b"] });',
      'Spark.setScriptData("ids", c.find({ tags: "a" }).toArray().map(function (d) { return d._id; }));',
    ]);
    expect(second.scriptData).toEqual({ ids: [2] });
  });
});
