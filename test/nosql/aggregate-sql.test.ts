// $count and $group on plain field paths after $match run as SQL (src/query/aggregate-sql.ts) when that is
// exact: generated documents with arrays, nulls, missing fields, longs and mixed numeric types give over HTTP
// exactly what the evaluator gives over the same documents (groups compared as sets: MongoDB leaves their
// order unspecified).
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbRequest } from '../../src/compute/protocol.js';
import { RemoteDb } from '../../src/compute/remote-db.js';
import { runStatement } from '../../src/compute/statements.js';
import { parsePipeline, runPipelineSync } from '../../src/query/aggregate.js';
import { parseGroup } from '../../src/query/aggregate-group.js';
import { finishGroup, groupAsSql } from '../../src/query/aggregate-sql.js';
import { docArb } from '../../src/query/arbitraries.test-util.js';
import { parseFilter } from '../../src/query/filter.js';
import { type Doc, fromWire, toWire, type Value } from '../../src/query/values.js';
import { groupRows } from '../../src/store/document-groups.js';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

const KEYS = ['$s', '$n', '$mixed', '$nested.p.q', '$nested', '$arr', '$gone', null, 'all'];
const VALUES = ['$n', '$mixed', '$nested.p.q', '$arr', '$gone'];
// The last has no SQL form (a residual filter): the SQL route must give way to the evaluator.
const MATCHES = [{}, { n: { $gte: 0 } }, { s: { $in: ['a', 'b'] } }, { arr: 1 }, { n: { $bitsAllSet: 1 } }];

/** Integers only on n and nested.p.q in some collections, so that the SQL path answers rather than gives up. */
const intsOnly = (d: Doc, i: number): Doc => ({
  ...d,
  n: i % 5 === 0 ? null : ((i * 7919) % 2001) - 1000,
  nested: { p: { q: i % 4 } },
});

const sorted = (docs: unknown[]) => docs.map((d) => JSON.stringify(d)).sort();

let seq = 0;
describe('aggregation pushdown', () => {
  it('generated documents and pipelines → the HTTP answer equals the evaluator', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb(true), { minLength: 0, maxLength: 25 }),
        fc.boolean(),
        fc.constantFrom(...KEYS),
        fc.constantFrom(...VALUES),
        fc.constantFrom(...MATCHES),
        fc.boolean(),
        async (generated, ints, key, value, match, indexed) => {
          seq += 1;
          const name = `agg${seq}`;
          await w.ok('POST', 'preview', `collection/${name}/runtime`, {});
          // Indexes change the plan (index or bitmap scans of the match), never the answer.
          if (indexed)
            for (const field of ['n', 'mixed'])
              await w.ok('POST', 'preview', `collection/script.${name}/index/${field}_1`, { [field]: 1 });
          const docs = generated.map((d, i) => ({ _id: i, ...(ints ? intsOnly(d, i) : d) }));
          if (docs.length > 0)
            await w.ok(
              'POST',
              'preview',
              `collection/script.${name}/insert`,
              docs.map((d) => toWire(d)),
            );
          const pipelines: unknown[][] = [
            [{ $match: match }, { $count: 'total' }],
            [
              { $match: match },
              {
                $group: {
                  _id: key === 'all' ? 'all' : key,
                  c: { $sum: 1 },
                  t: { $sum: value },
                  a: { $avg: value },
                },
              },
            ],
            [
              { $match: match },
              { $group: { _id: key, a: { $avg: value } } },
              { $sort: { a: -1 } },
              { $limit: 2 },
            ],
          ];
          for (const p of pipelines) {
            const expected = runPipelineSync(
              parsePipeline(fromWire(p as Value, { allowDollarKeys: true })),
              docs,
            ).map((d) => toWire(d));
            const got = await w.ok<unknown[]>('POST', 'preview', `collection/script.${name}/aggregate`, p);
            if (JSON.stringify(p).includes('$limit')) expect(got.length).toBe(expected.length);
            else expect(sorted(got)).toEqual(sorted(expected));
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  }, 240_000);

  it('integers on plain paths → answered by SQL (the store gives rows finishGroup accepts); a long → the evaluator', async () => {
    await w.ok('POST', 'preview', 'collection/aggints/runtime', {});
    const docs = Array.from({ length: 50 }, (_, i) => ({
      _id: i,
      c: ['GB', 'FR', null][i % 3],
      lvl: i,
      cur: i * 1000,
    }));
    await w.ok('POST', 'preview', 'collection/script.aggints/insert', docs);
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggints' };
    const spec = parseGroup(
      fromWire({ _id: '$c', n: { $sum: 1 }, avg: { $avg: '$cur' } }, { allowDollarKeys: true }),
    );
    const agg = groupAsSql(spec);
    if (agg?.kind !== 'group') throw new Error('expected a SQL group');
    const rows = await groupRows(w.server.store.pool, scope, parseFilter({ lvl: { $gte: 10 } }), agg, 100);
    const viaSql = finishGroup(agg, rows!);
    expect(viaSql).toBeDefined();
    const expected = runPipelineSync(
      parsePipeline(
        fromWire(
          [
            { $match: { lvl: { $gte: 10 } } },
            { $group: { _id: '$c', n: { $sum: 1 }, avg: { $avg: '$cur' } } },
          ],
          { allowDollarKeys: true },
        ),
      ),
      docs as Doc[],
    );
    expect(sorted(viaSql!.map((d) => toWire(d)))).toEqual(sorted(expected.map((d) => toWire(d))));
    await w.ok('POST', 'preview', 'collection/script.aggints/insert', {
      _id: 'long',
      c: 'GB',
      lvl: 99,
      cur: { $numberLong: '5' },
    });
    const again = await groupRows(w.server.store.pool, scope, parseFilter({ lvl: { $gte: 10 } }), agg, 100);
    expect(finishGroup(agg, again!)).toBeUndefined();
  });

  it('keys grouped by their text: a string and a non-string of the same text stay apart (SQL or evaluator)', async () => {
    await w.ok('POST', 'preview', 'collection/aggtexts/runtime', {});
    const keys: unknown[] = ['5', 5, 'true', true, '[1, 2]', [1, 2], '{"a": 1}', { a: 1 }, 'null', null];
    keys.push('-3', -3.5, '', 'x', { $numberLong: '7' }, { $date: '2025-01-02T00:00:00Z' }, '7', '12');
    const docs = keys.flatMap((k, i) => [
      { _id: `${i}a`, k, v: i },
      { _id: `${i}b`, k, v: 2 * i },
    ]);
    docs.push({ _id: 'gone', v: 1 } as never);
    await w.ok('POST', 'preview', 'collection/script.aggtexts/insert', docs);
    const pipeline = [{ $match: {} }, { $group: { _id: '$k', n: { $sum: 1 }, t: { $sum: '$v' } } }];
    const expected = runPipelineSync(
      parsePipeline(fromWire(pipeline, { allowDollarKeys: true })),
      docs.map((d) => fromWire(d as Value) as Doc),
    ).map((d) => toWire(d));
    const got = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggtexts/aggregate', pipeline);
    expect(sorted(got)).toEqual(sorted(expected));
    // Without the mixed texts, SQL answers (finishGroup accepts its rows) with the same groups.
    await w.ok('POST', 'preview', 'collection/script.aggtexts/remove', {
      query: { k: { $in: [5, true, null, 7] } },
    });
    await w.ok('POST', 'preview', 'collection/script.aggtexts/remove', {
      query: { k: { $in: [[1, 2], { a: 1 }] } },
    });
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggtexts' };
    const agg = groupAsSql(parseGroup(fromWire(pipeline[1]!.$group, { allowDollarKeys: true })));
    if (agg?.kind !== 'group') throw new Error('expected a SQL group');
    const rows = await groupRows(w.server.store.pool, scope, parseFilter({}), agg, 100);
    const viaSql = finishGroup(agg, rows!);
    expect(viaSql).toBeDefined();
    const left = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggtexts/find', { limit: 100 });
    const again = runPipelineSync(
      parsePipeline(fromWire(pipeline, { allowDollarKeys: true })),
      left.map((d) => fromWire(d as Value) as Doc),
    );
    expect(sorted(viaSql!.map((d) => toWire(d)))).toEqual(sorted(again.map((d) => toWire(d))));
  });

  it('mixed types on the grouped and summed paths, without then with indexes → the HTTP answer equals the evaluator', async () => {
    await w.ok('POST', 'preview', 'collection/aggmixed/runtime', {});
    const P = 'collection/script.aggmixed';
    // k and v cycle through ints, doubles, a long, strings (one spelled like a number), null, missing, arrays
    // and a document; c and i are the typed case (strings and int32 only), which SQL answers.
    const ks: unknown[] = [1, 2.5, { $numberLong: '3' }, 'GB', '1', null, undefined, [1, 2], { a: 1 }, 'FR'];
    const vs: unknown[] = [
      7,
      -2,
      0.5,
      { $numberLong: '9' },
      'x',
      null,
      undefined,
      [3, 4],
      { b: 2 },
      2147483647,
    ];
    const docs = Array.from({ length: 60 }, (_, i) => {
      const d: Record<string, unknown> = { _id: i, lvl: i % 10, c: ['GB', 'FR', 'DE'][i % 3], i: i * 1000 };
      if (ks[i % ks.length] !== undefined) d.k = ks[i % ks.length];
      if (vs[(i * 3) % vs.length] !== undefined) d.v = vs[(i * 3) % vs.length];
      return d;
    });
    await w.ok('POST', 'preview', `${P}/insert`, docs);
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggmixed' };
    const group = (id: string, value: string) => ({
      $group: { _id: id, n: { $sum: 1 }, t: { $sum: value }, a: { $avg: value } },
    });
    const pipelines = [
      [{ $match: { lvl: { $gte: 5 } } }, group('$k', '$v')],
      [{ $match: { lvl: { $gte: 5 } } }, group('$c', '$v')],
      [{ $match: { lvl: { $gte: 5 } } }, group('$k', '$i')],
      [{ $match: { lvl: { $gte: 5 } } }, group('$c', '$i')],
      [{ $match: { k: { $in: ['GB', 'FR', '1'] } } }, group('$k', '$i')],
      [{ $match: {} }, group('$v', '$k')],
    ];
    const check = async () => {
      for (const p of pipelines) {
        const expected = runPipelineSync(
          parsePipeline(fromWire(p as Value, { allowDollarKeys: true })),
          docs.map((d) => fromWire(d as Value) as Doc),
        ).map((d) => toWire(d));
        const got = await w.ok<unknown[]>('POST', 'preview', `${P}/aggregate`, p);
        expect(sorted(got)).toEqual(sorted(expected));
      }
      // The typed case is answered by SQL itself (finishGroup accepts the store's rows).
      const agg = groupAsSql(parseGroup(fromWire(group('$c', '$i').$group, { allowDollarKeys: true })));
      if (agg?.kind !== 'group') throw new Error('expected a SQL group');
      const rows = await groupRows(w.server.store.pool, scope, parseFilter({ lvl: { $gte: 5 } }), agg, 100);
      expect(finishGroup(agg, rows!)).toBeDefined();
    };
    await check();
    for (const field of ['lvl', 'k', 'c', 'v', 'i'])
      await w.ok('POST', 'preview', `${P}/index/${field}_1`, { [field]: 1 });
    await check();
  });

  it('the group statement plans in its own transaction: the pool and a caller transaction keep their settings', async () => {
    await w.ok('POST', 'preview', 'collection/aggplan/runtime', {});
    const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, lvl: i, c: ['GB', 'FR'][i % 2], cur: i }));
    await w.ok('POST', 'preview', 'collection/script.aggplan/insert', docs);
    await w.ok('POST', 'preview', 'collection/script.aggplan/index/lvl_1', { lvl: 1 });
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggplan' };
    const agg = groupAsSql(
      parseGroup(fromWire({ _id: '$c', n: { $sum: 1 }, t: { $sum: '$cur' } }, { allowDollarKeys: true })),
    );
    if (agg?.kind !== 'group') throw new Error('expected a SQL group');
    const filter = parseFilter({ lvl: { $gte: 10 } });
    const pool = w.server.store.pool;
    const viaPool = finishGroup(agg, (await groupRows(pool, scope, filter, agg, 100))!);
    const expected = [
      { _id: 'GB', n: 10, t: 190 },
      { _id: 'FR', n: 10, t: 200 },
    ];
    expect(sorted(viaPool!)).toEqual(sorted(expected));
    // Every connection of the pool still has the server's settings (SET LOCAL ended with the transaction).
    const clients = await Promise.all(Array.from({ length: pool.options.max ?? 1 }, () => pool.connect()));
    try {
      for (const c of clients) {
        const { rows } = await c.query<{ s: string }>("SELECT current_setting('enable_indexscan') AS s");
        expect(rows[0]!.s).toBe('on');
      }
    } finally {
      for (const c of clients) c.release();
    }
    // A compute thread's database (where the server runs aggregations) is a pool too: the same transaction.
    const texts: string[] = [];
    const clients2 = new Map<number, pg.PoolClient>();
    const remote = new RemoteDb(async (request: DbRequest) => {
      if (request.op === 'connect') {
        clients2.set(clients2.size, await pool.connect());
        return { client: clients2.size - 1 };
      }
      if (request.op === 'release') {
        clients2.get(request.client)?.release();
        return null;
      }
      texts.push(request.text);
      const on = request.client === undefined ? pool : clients2.get(request.client)!;
      return runStatement(on, request.text, request.values);
    });
    const viaRemote = finishGroup(agg, (await groupRows(remote.asPool(), scope, filter, agg, 100))!);
    expect(sorted(viaRemote!)).toEqual(sorted(expected));
    const at = texts.findIndex((t) => t.includes('GROUP BY'));
    expect(texts.slice(at - 2, at)).toEqual([
      'BEGIN READ ONLY',
      expect.stringMatching(/^SELECT set_config\('enable_indexscan', 'off', true\)/),
    ]);
    expect(texts[at + 1]).toBe('COMMIT');
    // Inside a caller's transaction the statement runs as it is, and leaves that transaction usable.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const viaClient = finishGroup(agg, (await groupRows(client, scope, filter, agg, 100))!);
      expect(sorted(viaClient!)).toEqual(sorted(expected));
      const { rows } = await client.query<{ s: string }>("SELECT current_setting('enable_indexscan') AS s");
      expect(rows[0]!.s).toBe('on');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('a $match with no SQL form ($bitsAllSet) before a SQL-able $group → the evaluator answers, odd levels only', async () => {
    await w.ok('POST', 'preview', 'collection/aggbits/runtime', {});
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, lvl: i + 1 }));
    await w.ok('POST', 'preview', 'collection/script.aggbits/insert', docs);
    const got = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggbits/aggregate', [
      { $match: { lvl: { $bitsAllSet: 1 } } },
      { $group: { _id: null, n: { $sum: 1 }, total: { $sum: '$lvl' } } },
    ]);
    expect(got).toEqual([{ _id: null, n: 5, total: 25 }]);
  });
});
