// A large find without projection renders each stored text with the scanner (src/nosql/find-render.ts), in
// slices on the event loop: the answer is byte for byte the walk's rendering of the same rows
// (storedTextToWireParsed, the path every find took before), over generated documents of every value type.
// The slices themselves are counted in src/nosql/find-render.test.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedTextToWireParsed } from '../../src/query/stored-form.js';
import { wireDocArb } from '../../src/query/stored-wire-arbitraries.test-util.js';
import { toWire } from '../../src/query/values.js';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

/** The walk's answer to a find of the whole collection in _id order: the previous path, from the rows. */
async function walkAnswer(collection: string): Promise<string> {
  const { rows } = await w.server.store.pool.query<{ doc: string }>(
    `SELECT doc::text AS doc FROM nosql_documents WHERE game_id = $1 AND stage = 'preview' AND collection = $2
     ORDER BY id`,
    [w.apiKey, collection],
  );
  return `[${rows.map((r) => storedTextToWireParsed(r.doc)).join(',')}]`;
}

describe('large find rendering', () => {
  it('2,500 generated documents (every value type, unicode, names like "0"): the walk’s bytes', {
    timeout: 120_000,
  }, async () => {
    const c = 'script.wireMix';
    expect((await w.call('POST', 'preview', `collection/${c}/runtime`)).status).toBe(200);
    const docs = fc
      .sample(fc.oneof(wireDocArb(false), wireDocArb(true)), { numRuns: 2500, seed: 42 })
      // The API refuses a __proto__ field name; "0" and "10" stay.
      .filter((d) => !JSON.stringify(toWire(d)).includes('"__proto__"'))
      .map((d, i) => ({ ...(toWire(d) as Record<string, unknown>), _id: `d${String(i).padStart(5, '0')}` }));
    for (let from = 0; from < docs.length; from += 500) {
      await w.ok('POST', 'preview', `collection/${c}/insert`, docs.slice(from, from + 500));
    }
    const res = await w.call('POST', 'preview', `collection/${c}/find`, { query: {}, limit: 10_000 });
    expect(res.status).toBe(200);
    expect((res.json as unknown[]).length).toBe(docs.length);
    expect(docs.length).toBeGreaterThan(2000);
    expect(res.text).toBe(await walkAnswer(c));
  });

  it('5,000 documents with ObjectIds, dates and 500-character strings, read in several batches: the walk’s bytes', {
    timeout: 120_000,
  }, async () => {
    const c = 'script.wireBatches';
    expect((await w.call('POST', 'preview', `collection/${c}/runtime`)).status).toBe(200);
    for (let from = 0; from < 5000; from += 1000) {
      const docs = Array.from({ length: 1000 }, (_, k) => ({
        _id: { $oid: (from + k).toString(16).padStart(24, '0') },
        when: { $date: new Date(1_700_000_000_000 + (from + k) * 1000).toISOString() },
        n: from + k,
        x: (from + k) / 7,
        pad: 'p'.repeat(500),
      }));
      await w.ok('POST', 'preview', `collection/${c}/insert`, docs);
    }
    const res = await w.call('POST', 'preview', `collection/${c}/find`, { query: {}, limit: 10_000 });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect((res.json as unknown[]).length).toBe(5000);
    expect(res.text).toBe(await walkAnswer(c));
  });
});
