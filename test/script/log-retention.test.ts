// Script log retention (PLAYBASE_SCRIPT_LOG_RETENTION_DAYS): the periodic sweep deletes the entries older than the
// retention from every stage's script.log, keeps the newer ones, the entries that are not the server's, and
// every other collection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDocuments } from '../../src/nosql/documents.js';
import { ObjectId } from '../../src/query/values.js';
import { purgeScriptLogs } from '../../src/script/log-retention.js';
import { SCRIPT_LOG } from '../../src/script/run.js';
import { loadSettings } from '../../src/settings.js';
import { recordCollections } from '../../src/store/collections.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;
const DAY = 86_400_000;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG);
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const old = (daysAgo: number) => ObjectId.createFromTime(Math.floor((Date.now() - daysAgo * DAY) / 1000));

describe('script log retention', () => {
  it('defaults to 30 days; 0 keeps the log forever', () => {
    expect(loadSettings({}).scriptLogRetentionDays).toBe(30);
    expect(loadSettings({ PLAYBASE_SCRIPT_LOG_RETENTION_DAYS: '0' }).scriptLogRetentionDays).toBe(0);
  });

  it('deletes the entries older than the retention, in every stage, and nothing else', async () => {
    await setScripts(w, [script('event', 'score', 'Spark.getLog().info("fresh");')]);
    await w.ask('LogEventRequest', { eventKey: 'score', playerId: alice, SCORE: 1 });
    const pool = w.server.store.pool;
    const preview = { game: w.apiKey, stage: 'preview' as const, collection: SCRIPT_LOG };
    const other = { game: 'anotherGame', stage: 'live' as const, collection: SCRIPT_LOG };
    await recordCollections(pool, other, new Map([[SCRIPT_LOG, 'runtime']]), new Date());
    await insertDocuments(pool, preview, [
      { _id: old(40), level: 'INFO', log: 'forty days' },
      { _id: old(31), level: 'INFO', log: 'thirty-one days' },
      { _id: old(29), level: 'INFO', log: 'twenty-nine days' },
      // Written by hand through the nosql API with an id that is not an ObjectId: not the sweep's to delete.
      { _id: 'by-hand', level: 'INFO', log: 'kept' },
    ]);
    await insertDocuments(pool, other, [{ _id: old(45), log: 'other game, old' }]);
    // Another collection with old ObjectIds is never touched.
    await recordCollections(pool, preview, new Map([['script.keep', 'runtime']]), new Date());
    await insertDocuments(pool, { ...preview, collection: 'script.keep' }, [{ _id: old(400), a: 1 }]);

    expect(await purgeScriptLogs(pool, Date.now(), 0)).toBe(0);
    expect(await purgeScriptLogs(pool, Date.now(), 30)).toBe(3);
    const logs = (await w.find(SCRIPT_LOG, { limit: 100 })).map((d) => d.log);
    expect(logs.sort()).toEqual(['fresh', 'kept', 'twenty-nine days']);
    expect(await w.find('script.keep')).toHaveLength(1);
    // A second sweep finds nothing more; a shorter retention takes the next ones.
    expect(await purgeScriptLogs(pool, Date.now(), 30)).toBe(0);
    expect(await purgeScriptLogs(pool, Date.now() + 2 * DAY, 30)).toBe(1);
  });
});
