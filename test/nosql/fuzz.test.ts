// Fuzzing every nosql endpoint with random and hostile bodies: never a 500, never a change to data it must not touch.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyBody,
  HOSTILE_KEYS,
  HOSTILE_STRINGS,
  hostile,
  plausibleQuery,
  plausibleUpdate,
  saneQuery,
  saneUpdate,
} from './hostile-arbitraries.js';
import { createWorld, type World } from './world.js';

let w: World;
const OTHER_GAME = 'fuzzothergame';

async function snapshot(except?: { stage: string; collection: string }): Promise<string> {
  const { rows } = await w.server.store.pool.query<{ line: string }>(
    `SELECT game_id || '|' || stage || '|' || collection || '|' || id || '|' || doc::text AS line
     FROM nosql_documents
     WHERE NOT (game_id = $1 AND stage = $2 AND collection = $3)
     ORDER BY game_id, stage, collection, id`,
    [w.apiKey, except?.stage ?? '-', except?.collection ?? '-'],
  );
  return createHash('sha256')
    .update(rows.map((r) => r.line).join('\n'))
    .digest('hex');
}

function send(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown) {
  return w.call(method, 'preview', path, typeof body === 'string' ? body : JSON.stringify(body ?? null));
}

beforeAll(async () => {
  w = await createWorld();
  const seed = Array.from({ length: 20 }, (_, i) => ({
    _id: i,
    userName: `u${i}`,
    level: i,
    tags: ['a', String(i)],
    nested: { x: i, y: [i, { z: i }] },
  }));
  for (const stage of ['preview', 'live']) {
    for (const c of ['player', 'challengeInstance'])
      await w.ok('POST', stage, `collection/${c}/insert`, seed);
  }
  await w.server.store.pool.query(
    `INSERT INTO nosql_documents VALUES ($1, 'preview', 'player', '"x"', '{"_id": "x", "secret": 1}')`,
    [OTHER_GAME],
  );
});
afterAll(async () => {
  await w.close();
});

const RUNS = 60;
const countBody = fc.oneof(anyBody, fc.record({ query: fc.oneof(saneQuery, plausibleQuery, hostile) }));
const READS: Array<[string, string, fc.Arbitrary<unknown>]> = [
  ['find', 'collection/player/find', anyBody],
  ['explain', 'collection/player/explain', anyBody],
  ['count', 'collection/player/count', countBody],
  ['aggregate', 'collection/player/aggregate', anyBody],
];

describe('fuzz: reads never fail with 500 and never change data', () => {
  it.each(READS)('%s with hostile bodies', async (_name, path, arb) => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(arb, async (body) => {
        const res = await send('POST', path, body);
        expect(res.status, res.text).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toBe(before);
  });

  it('aggregate with hostile pipelines', async () => {
    const stage = fc.dictionary(
      fc.constantFrom(
        '$match',
        '$group',
        '$sort',
        '$skip',
        '$limit',
        '$project',
        '$unwind',
        '$count',
        '$out',
        '$where',
      ),
      fc.oneof(
        hostile,
        plausibleQuery,
        fc.constantFrom<unknown>('$tags', '$nested.y', { _id: '$level', n: { $sum: 1 } }, 5),
      ),
      { minKeys: 1, maxKeys: 2 },
    );
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(fc.array(stage, { maxLength: 4 }), async (pipeline) => {
        const res = await send('POST', 'collection/player/aggregate', pipeline);
        expect(res.status, res.text).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toBe(before);
  });
});

describe('fuzz: writes touch only their collection, and nothing when refused', () => {
  const target = { stage: 'preview', collection: 'player' };
  const WRITES: Array<[string, string, fc.Arbitrary<unknown>]> = [
    ['insert', 'collection/player/insert', fc.oneof(anyBody, fc.array(hostile, { maxLength: 3 }))],
    ['save', 'collection/player/save', anyBody],
    [
      'update',
      'collection/player/update',
      fc.oneof(
        anyBody,
        fc.record(
          {
            query: fc.oneof(plausibleQuery, hostile),
            update: fc.oneof(plausibleUpdate, hostile),
            multi: hostile,
            upsert: hostile,
          },
          { requiredKeys: ['query', 'update'] },
        ),
        fc.record(
          { query: plausibleQuery, update: plausibleUpdate, multi: fc.boolean(), upsert: fc.boolean() },
          { requiredKeys: ['query', 'update'] },
        ),
        fc.record(
          { query: saneQuery, update: saneUpdate, multi: fc.boolean(), upsert: fc.boolean() },
          { requiredKeys: ['query', 'update'] },
        ),
      ),
    ],
    [
      'remove',
      'collection/player/remove',
      fc.oneof(anyBody, fc.record({ query: fc.oneof(hostile, plausibleQuery, saneQuery) })),
    ],
  ];

  it.each(WRITES)('%s with hostile bodies', async (_name, path, arb) => {
    await fc.assert(
      fc.asyncProperty(arb, async (body) => {
        const others = await snapshot(target);
        const whole = await snapshot();
        const res = await send('POST', path, body);
        expect(res.status, res.text).toBeLessThan(500);
        expect(await snapshot(target)).toBe(others);
        if (res.status !== 200) expect(await snapshot()).toBe(whole);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: administration and paths', () => {
  it('index create and drop with hostile names and keys → never 500, documents untouched', async () => {
    const before = await snapshot();
    const name = fc.oneof(fc.constantFrom(...HOSTILE_KEYS, '_id_', 'ok_1'), fc.string({ maxLength: 10 }));
    await fc.assert(
      fc.asyncProperty(name, anyBody, fc.boolean(), async (n, keys, unique) => {
        const path = `collection/player/index/${encodeURIComponent(n) || 'x'}${unique ? '?unique=true' : ''}`;
        const made = await send('POST', path, keys);
        expect(made.status, made.text).toBeLessThan(500);
        const dropped = await w.call(
          'DELETE',
          'preview',
          `collection/player/index/${encodeURIComponent(n) || 'x'}`,
        );
        expect(dropped.status, dropped.text).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toBe(before);
    const { rows } = await w.server.store.pool.query(
      "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'nosql_documents' AND indexname LIKE 'nx\\_%'",
    );
    expect(rows).toHaveLength(0);
  });

  it('hostile collection names in paths, for every route → never 500, data untouched', async () => {
    const before = await snapshot();
    const routes: Array<['GET' | 'POST' | 'DELETE', string]> = [
      ['POST', 'find'],
      ['POST', 'count'],
      ['POST', 'insert'],
      ['POST', 'update'],
      ['POST', 'remove'],
      ['POST', 'meta'],
      ['POST', 'runtime'],
      ['GET', 'stats'],
      ['GET', 'indices'],
      ['DELETE', ''],
    ];
    const name = fc.oneof(
      fc.constantFrom(...HOSTILE_KEYS, ...HOSTILE_STRINGS),
      fc.string({ minLength: 1, maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(name, fc.constantFrom(...routes), async (n, [method, op]) => {
        const path = `collection/${encodeURIComponent(n)}${op ? `/${op}` : ''}`;
        const body = method === 'POST' ? { query: { a: 1 }, update: { $set: { b: 1 } } } : undefined;
        const res = await w.call(method, 'preview', path, body);
        expect(res.status, res.text).toBeLessThan(500);
      }),
      { numRuns: RUNS * 2 },
    );
    const { rows } = await w.server.store.pool.query(
      "SELECT count(*)::int AS n FROM nosql_documents WHERE game_id = $1 AND collection NOT IN ('player', 'challengeInstance')",
      [w.apiKey],
    );
    expect(rows[0]).toEqual({ n: 0 });
    expect(await snapshot()).toBe(before);
  });
});
