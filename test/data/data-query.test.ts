// Data-service queries: every operator and condition against the declared fields, checked against an oracle in
// JavaScript on generated queries; type bracketing, sort, paging and the refusals.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DataWorld, startDataWorld } from './world.js';

let w: DataWorld;
type Data = Record<string, unknown>;
const items = new Map<string, Data>();

const PLAYERS = ['ann', 'anna', 'an', 'bob', 'Bob', 'b', '', 'é', 'z', 'ann smith'];
const POINTS = [-5, -0.25, 0, 0.5, 1, 2, 10, 1e6, 2 ** 53];

beforeAll(async () => {
  w = await startDataWorld();
  let n = 0;
  const add = async (data: Data) => {
    const id = `i${String(n++).padStart(3, '0')}`;
    const res = await w.data('PUT', 'preview', `Score/${id}`, { data });
    if (res.statusCode !== 200) throw new Error(res.body);
    items.set(id, data);
  };
  for (let i = 0; i < PLAYERS.length; i++) {
    await add({ player: PLAYERS[i], points: POINTS[i % POINTS.length] });
    await add({
      player: PLAYERS[(i * 3) % PLAYERS.length],
      points: POINTS[(i * 5) % POINTS.length],
      extra: i,
    });
  }
  await add({ points: 1 });
  await add({ player: 'ann' });
  await add({ player: null, points: null });
  await add({});
  // Rows whose indexed fields hold another type (written before a configuration change): only SQL can make them.
  for (const [id, data] of [
    ['m001', { player: 5, points: 'ann' }],
    ['m002', { player: ['ann'], points: [1] }],
    ['m003', { player: { a: 1 }, points: true }],
  ] as const) {
    await w.server.store.pool.query(
      `INSERT INTO data_items (game_id, stage, type, item_id, data, version, updated_at)
       VALUES ($1, 'preview', 'Score', $2, $3::jsonb, 1, now())`,
      [w.apiKey, id, JSON.stringify(data)],
    );
    items.set(id, data);
  }
}, 60_000);
afterAll(async () => {
  await w?.close();
});

// ---- The oracle ----
type Rule = { field: 'player' | 'points'; operator: string; value: unknown };
type Node = Rule | { condition: 'AND' | 'OR' | 'NOT'; rules: Node[] };
const FIELD_TYPES = { player: 'string', points: 'number' } as const;

function cmp(a: string | number, b: string | number): number {
  if (typeof a === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b as string));
  return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
}

function matches(node: Node, data: Data): boolean {
  if ('condition' in node) {
    if (node.condition === 'NOT') return !matches(node.rules[0] as Node, data);
    const results = node.rules.map((r) => matches(r, data));
    return node.condition === 'AND' ? results.every(Boolean) : results.some(Boolean);
  }
  const v = data[node.field];
  if (typeof v !== FIELD_TYPES[node.field]) return false;
  const x = v as string | number;
  switch (node.operator) {
    case 'EQ':
      return cmp(x, node.value as string) === 0;
    case 'NE':
      return cmp(x, node.value as string) !== 0;
    case 'LT':
      return cmp(x, node.value as string) < 0;
    case 'GT':
      return cmp(x, node.value as string) > 0;
    case 'LE':
      return cmp(x, node.value as string) <= 0;
    case 'GE':
      return cmp(x, node.value as string) >= 0;
    case 'IN':
      return (node.value as (string | number)[]).some((y) => cmp(x, y) === 0);
    case 'STARTSWITH':
      return (x as string).startsWith(node.value as string);
  }
  throw new Error(`oracle: ${node.operator}`);
}

function expected(query: Node | undefined, sort?: 'player' | 'points', asc = true): string[] {
  const ids = [...items.keys()].filter((id) => query === undefined || matches(query, items.get(id) as Data));
  const byId = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  if (!sort) return ids.sort(byId);
  const key = (id: string) => {
    const v = (items.get(id) as Data)[sort];
    return typeof v === FIELD_TYPES[sort] ? (v as string | number) : undefined;
  };
  return ids.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === undefined || kb === undefined) return ka === kb ? byId(a, b) : ka === undefined ? 1 : -1;
    const c = cmp(ka, kb);
    return c !== 0 ? (asc ? c : -c) : byId(a, b);
  });
}

async function run(body: Record<string, unknown>): Promise<string[]> {
  const res = await w.data('POST', 'preview', 'Score/query', { limit: 1000, ...body });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return (res.json().items as { id: string }[]).map((i) => i.id);
}

const rule = (field: 'player' | 'points', operator: string, value: unknown): Node => ({
  field,
  operator,
  value,
});

describe('operators against the declared fields', () => {
  const single: [string, Node][] = [
    ['EQ string', rule('player', 'EQ', 'ann')],
    ['EQ string is case-sensitive', rule('player', 'EQ', 'Bob')],
    ['NE string (items without the field do not match)', rule('player', 'NE', 'ann')],
    ['LT string (bytewise: "B" < "a")', rule('player', 'LT', 'anna')],
    ['GT string with unicode', rule('player', 'GT', 'z')],
    ['LE string', rule('player', 'LE', 'b')],
    ['GE empty string', rule('player', 'GE', '')],
    ['IN strings', rule('player', 'IN', ['ann', 'b', 'nobody'])],
    ['STARTSWITH', rule('player', 'STARTSWITH', 'an')],
    ['STARTSWITH ""', rule('player', 'STARTSWITH', '')],
    ['EQ number', rule('points', 'EQ', 1)],
    ['EQ number across int and double (1 = 1.0)', rule('points', 'EQ', 1.0)],
    ['NE number', rule('points', 'NE', 0)],
    ['LT negative', rule('points', 'LT', -0.1)],
    ['GT large exact', rule('points', 'GT', 2 ** 53 - 1)],
    ['LE fraction', rule('points', 'LE', 0.5)],
    ['GE', rule('points', 'GE', 2)],
    ['IN numbers', rule('points', 'IN', [0, 10, 7])],
    ['NOT EQ (matches items without the field)', { condition: 'NOT', rules: [rule('player', 'EQ', 'ann')] }],
    ['AND', { condition: 'AND', rules: [rule('player', 'STARTSWITH', 'a'), rule('points', 'GE', 0)] }],
    ['OR', { condition: 'OR', rules: [rule('player', 'EQ', 'bob'), rule('points', 'LT', 0)] }],
    [
      'nested NOT(OR(AND,...))',
      {
        condition: 'NOT',
        rules: [
          {
            condition: 'OR',
            rules: [
              { condition: 'AND', rules: [rule('points', 'GT', 0), rule('points', 'LT', 5)] },
              rule('player', 'EQ', ''),
            ],
          },
        ],
      },
    ],
  ];
  for (const [name, query] of single) {
    it(`${name} → the oracle's items`, async () => {
      const want = expected(query);
      expect(await run({ query })).toEqual(want);
      // A query that matches nothing would prove little: each of these matches something or is a NOT.
      if (!('condition' in query && query.condition === 'NOT')) expect(want.length).toBeGreaterThan(0);
    });
  }

  it('STARTSWITH is literal: "%" and "_" are not wildcards', async () => {
    expect(
      await run({
        query: {
          condition: 'OR',
          rules: [rule('player', 'STARTSWITH', '%'), rule('player', 'STARTSWITH', '_')],
        },
      }),
    ).toEqual([]);
  });

  it('values of another JSON type never match (a number is not a string, an array is not its element)', async () => {
    const ids = await run({
      query: { condition: 'OR', rules: [rule('player', 'GE', ''), rule('points', 'GE', -1e9)] },
    });
    for (const mismatched of ['m001', 'm002', 'm003']) expect(ids).not.toContain(mismatched);
    const negated = await run({ query: { condition: 'NOT', rules: [rule('player', 'GE', '')] } });
    expect(negated).toEqual(expect.arrayContaining(['m001', 'm002', 'm003']));
  });

  it('generated condition trees → the same items as the oracle', async () => {
    const stringRule = fc.record({
      field: fc.constant('player' as const),
      operator: fc.constantFrom('EQ', 'NE', 'LT', 'GT', 'LE', 'GE', 'STARTSWITH'),
      value: fc.constantFrom(...PLAYERS, 'a', 'bo'),
    });
    const numberRule = fc.record({
      field: fc.constant('points' as const),
      operator: fc.constantFrom('EQ', 'NE', 'LT', 'GT', 'LE', 'GE'),
      value: fc.constantFrom(...POINTS, 0.4, 3),
    });
    const inRule = fc.oneof(
      fc.record({
        field: fc.constant('player' as const),
        operator: fc.constant('IN'),
        value: fc.subarray(PLAYERS, { minLength: 1 }),
      }),
      fc.record({
        field: fc.constant('points' as const),
        operator: fc.constant('IN'),
        value: fc.subarray(POINTS, { minLength: 1 }),
      }),
    );
    const { tree } = fc.letrec<{ tree: Node }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        stringRule,
        numberRule,
        inRule,
        fc.record({
          condition: fc.constantFrom('AND' as const, 'OR' as const),
          rules: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
        }),
        fc.record({ condition: fc.constant('NOT' as const), rules: fc.tuple(tie('tree')) }),
      ),
    }));
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.constantFrom(undefined, 'player' as const, 'points' as const),
        fc.boolean(),
        async (query, sort, asc) => {
          const got = await run({ query, ...(sort ? { sort, asc } : {}) });
          expect(got).toEqual(expected(query, sort, asc));
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('sort and paging', () => {
  it('sort on a number field, ascending and descending; items without it come last both ways', async () => {
    for (const asc of [true, false]) {
      const got = await run({ sort: 'points', asc });
      expect(got).toEqual(expected(undefined, 'points', asc));
      expect(got.slice(-6)).toEqual(expect.arrayContaining(['m001', 'm002', 'm003']));
    }
  });

  it('sort on a string field is bytewise; asc defaults to true', async () => {
    expect(await run({ sort: 'player' })).toEqual(expected(undefined, 'player', true));
  });

  it('offset and limit page through every item once; nextOffset is null on the last page', async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const res = await w.data('POST', 'preview', 'Score/query', {
        sort: 'points',
        asc: false,
        offset,
        limit: 7,
      });
      const body = res.json() as { items: { id: string }[]; nextOffset: number | null };
      expect(body.items.length).toBeLessThanOrEqual(7);
      seen.push(...body.items.map((i) => i.id));
      offset = body.nextOffset;
      pages += 1;
    }
    expect(seen).toEqual(expected(undefined, 'points', false));
    expect(pages).toBe(Math.ceil(items.size / 7));
  });

  it('no limit → at most 100 items', async () => {
    for (let i = 0; i < 80; i++) await w.data('PUT', 'preview', `Note/n${i}`, { data: { title: `t${i}` } });
    const res = await w.data('POST', 'preview', 'Note/query', {});
    expect(res.json().items).toHaveLength(80);
    for (let i = 80; i < 120; i++) await w.data('PUT', 'preview', `Note/n${i}`, { data: { title: `t${i}` } });
    const full = (await w.data('POST', 'preview', 'Note/query')).json();
    expect(full.items).toHaveLength(100);
    expect(full.nextOffset).toBe(100);
  });
});

describe('refusals', () => {
  const cases: [string, unknown, string][] = [
    [
      'a rule on an undeclared field',
      { query: { condition: 'AND', rules: [{ field: 'extra', operator: 'EQ', value: 1 }] } },
      'DATA_FIELD_NOT_INDEXED',
    ],
    ['sort on an undeclared field', { sort: 'extra' }, 'DATA_FIELD_NOT_INDEXED'],
    [
      'an unknown operator',
      { query: { condition: 'AND', rules: [rule('points', 'BETWEEN', 1)] } },
      'DATA_BAD_QUERY',
    ],
    [
      'a lower-case operator',
      { query: { condition: 'AND', rules: [rule('points', 'eq', 1)] } },
      'DATA_BAD_QUERY',
    ],
    [
      'an unknown condition',
      { query: { condition: 'XOR', rules: [rule('points', 'EQ', 1)] } },
      'DATA_BAD_QUERY',
    ],
    [
      'NOT with two rules',
      { query: { condition: 'NOT', rules: [rule('points', 'EQ', 1), rule('points', 'EQ', 2)] } },
      'DATA_BAD_QUERY',
    ],
    ['empty rules', { query: { condition: 'AND', rules: [] } }, 'DATA_BAD_QUERY'],
    [
      'STARTSWITH on a number field',
      { query: { condition: 'AND', rules: [rule('points', 'STARTSWITH', '1')] } },
      'DATA_BAD_QUERY',
    ],
    [
      'a string value for a number field',
      { query: { condition: 'AND', rules: [rule('points', 'EQ', '1')] } },
      'DATA_BAD_QUERY',
    ],
    [
      'a number value for a string field',
      { query: { condition: 'AND', rules: [rule('player', 'EQ', 1)] } },
      'DATA_BAD_QUERY',
    ],
    [
      'IN with an empty list',
      { query: { condition: 'AND', rules: [rule('points', 'IN', [])] } },
      'DATA_BAD_QUERY',
    ],
    ['IN with a scalar', { query: { condition: 'AND', rules: [rule('points', 'IN', 1)] } }, 'DATA_BAD_QUERY'],
    [
      'a rule with an extra key',
      { query: { condition: 'AND', rules: [{ ...rule('points', 'EQ', 1), x: 1 }] } },
      'DATA_BAD_QUERY',
    ],
    ['a rule that is not an object', { query: { condition: 'AND', rules: ['points'] } }, 'DATA_BAD_QUERY'],
    [
      '101 rules',
      { query: { condition: 'OR', rules: Array.from({ length: 101 }, (_, i) => rule('points', 'EQ', i)) } },
      'DATA_BAD_QUERY',
    ],
    ['an unknown body field', { skip: 5 }, 'DATA_BAD_BODY'],
    ['limit 0', { limit: 0 }, 'DATA_BAD_BODY'],
    ['limit 1001', { limit: 1001 }, 'DATA_BAD_BODY'],
    ['a negative offset', { offset: -1 }, 'DATA_BAD_BODY'],
    ['asc not a boolean', { sort: 'points', asc: 'yes' }, 'DATA_BAD_BODY'],
    ['a body that is an array', [], 'DATA_BAD_BODY'],
  ];
  for (const [name, body, code] of cases) {
    it(`${name} → 400 ${code}`, async () => {
      const res = await w.data('POST', 'preview', 'Score/query', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe(code);
    });
  }

  it('conditions nested 11 deep → 400 DATA_BAD_QUERY; 10 deep → 200', async () => {
    const nest = (depth: number): Node =>
      depth === 1
        ? { condition: 'AND', rules: [rule('points', 'EQ', 1)] }
        : { condition: 'AND', rules: [nest(depth - 1)] };
    expect((await w.data('POST', 'preview', 'Score/query', { query: nest(10) })).statusCode).toBe(200);
    const deep = await w.data('POST', 'preview', 'Score/query', { query: nest(11) });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().code).toBe('DATA_BAD_QUERY');
  });
});
