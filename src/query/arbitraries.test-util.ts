// Test support: fast-check generators of documents, filters and sorts for the differential tests.
// "safe" generators stay where mingo follows MongoDB (see docs/query-engine.md, known mingo deviations);
// "full" generators add longs beyond 2^53, NaN, ±Infinity, supplementary characters, field orders, nested
// arrays and ObjectIds everywhere, and are checked against matchesFilter / compareBySort only.
import { ObjectId } from 'bson';
import fc from 'fast-check';
import { type Doc, fromWire, toWire, type Value } from './values.js';

/** fast-check builds records without Object.prototype; tests want plain objects, as JSON.parse gives. */
function plain<T>(v: T): T {
  return fromWire(toWire(v as Value), { allowDollarKeys: true }) as T;
}

const OIDS = ['000000000000000000000001', '65a000000000000000000002', 'ffffffffffffffffffffff03'].map((h) =>
  ObjectId.createFromHexString(h),
);
const DATES = [new Date(0), new Date(1_700_000_000_123), new Date(-86_400_000)];

const intArb = fc.integer({ min: -4, max: 4 });
const dblArb = fc.constantFrom(-2.5, 0.5, 1.5, 3.25, 2 ** 53, -1e21);
const safeNum = fc.oneof(intArb, intArb, dblArb);
const safeStr = fc.constantFrom(
  '',
  'a',
  'ab',
  'abc',
  'b',
  'B',
  'Ab',
  'é',
  'z\u00ff',
  'line\nnext',
  'end\n',
  '10',
);
const fullNum = fc.oneof(
  safeNum,
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 60,
    2 ** 63,
    -(2 ** 63),
  ),
  fc.constantFrom(3n, -2n, 2n ** 53n + 1n, 2n ** 60n, 2n ** 60n + 1n, 2n ** 63n - 1n, -(2n ** 63n)),
);
const fullStr = fc.oneof(
  safeStr,
  fc.constantFrom('\uff21', '\u{1f600}', '\ue000', 'a\u{10000}', 'K', '\u212a'),
);

export function scalarArb(full: boolean): fc.Arbitrary<Value> {
  const parts: fc.Arbitrary<Value>[] = [
    full ? fullNum : safeNum,
    full ? fullStr : safeStr,
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(...DATES),
  ];
  if (full) parts.push(fc.constantFrom(...OIDS));
  return fc.oneof(...parts);
}

const itemArb = (full: boolean) =>
  fc.record(
    { x: full ? fc.oneof(intArb, fullNum) : intArb, y: full ? fullStr : safeStr },
    { requiredKeys: [] },
  );

/** One document; every key is optional (missing fields) and keys come in one fixed order. */
export function docArb(full: boolean): fc.Arbitrary<Doc> {
  const scalar = scalarArb(full);
  const mixedArray = full
    ? fc.array(fc.oneof(scalar, fc.array(intArb, { maxLength: 2 }), itemArb(full)), { maxLength: 3 })
    : fc.array(intArb, { maxLength: 3 });
  return fc
    .record(
      {
        n: fc.oneof(full ? fullNum : safeNum, fc.constant(null)),
        s: full ? fullStr : safeStr,
        mixed: scalar,
        arr: fc.oneof(fc.array(intArb, { maxLength: 4 }), mixedArray),
        objs: fc.array(itemArb(full), { maxLength: 3 }),
        nested: fc.record({
          p: fc.oneof(fc.record({ q: full ? fullNum : safeNum }, { requiredKeys: [] }), fc.constant(null)),
        }),
        ...(full
          ? { any: fc.oneof(scalar, mixedArray, itemArb(true), fc.record({ y: intArb, x: intArb })) }
          : {}),
      },
      { requiredKeys: [] },
    )
    .map(plain) as fc.Arbitrary<Doc>;
}

const NO_ARRAY_PATHS = ['n', 's', 'mixed', 'nested.p.q', 'nested.p', 'gone'];
const ARRAY_PATHS = ['arr', 'arr.0', 'arr.1', 'objs.x', 'objs.0.x', 'objs.y'];
const FULL_PATHS = [
  ...NO_ARRAY_PATHS,
  ...ARRAY_PATHS,
  'any',
  'any.x',
  'any.0',
  'any.0.x',
  'arr.0.x',
  'objs.1',
];
const REGEXES = ['^a', 'b$', 'a.c', '[a-c]+', 'B', 'e$', '\\d', '^(ab|z)', 'x?y*', 'ext$', '^line$'];
/** Where PCRE and JavaScript differ: mingo (JavaScript) is wrong on these; checked in full mode only. */
const FULL_REGEXES = [...REGEXES, '^$', 'd$', '.$', 'k', 'S', '[0-9]+$'];

type Leaf = fc.Arbitrary<Record<string, unknown>>;

function at(paths: string[], op: fc.Arbitrary<unknown>): Leaf {
  return fc.record({ path: fc.constantFrom(...paths), op }).map(({ path, op }) => ({ [path]: op }));
}

/**
 * Leaf predicates. In safe mode each operator only meets the paths where mingo follows MongoDB: no null
 * operand on a path through an array, no order comparison with null, $all/$mod/$size/$elemMatch only on the
 * arrays themselves (see the deviations in docs/query-engine.md).
 */
function leafArbs(full: boolean): Leaf[] {
  const scalar = scalarArb(full);
  const notNull = scalar.filter((v) => v !== null);
  const operand = full
    ? fc.oneof(
        scalar,
        scalar,
        fc.array(intArb, { maxLength: 2 }),
        fc.record({ x: intArb }, { requiredKeys: [] }),
      )
    : notNull;
  const cmp = fc.constantFrom('$eq', '$ne', '$gt', '$gte', '$lt', '$lte');
  const anyPath = full ? FULL_PATHS : [...NO_ARRAY_PATHS, ...ARRAY_PATHS];
  const nullPaths = full ? FULL_PATHS : NO_ARRAY_PATHS;
  const inOp = (v: fc.Arbitrary<unknown>) =>
    fc
      .record({ op: fc.constantFrom('$in', '$nin'), v: fc.array(v, { maxLength: 3 }) })
      .map(({ op, v }) => ({ [op]: v }));
  const arrays = full ? FULL_PATHS : ['arr'];
  const leaves: Leaf[] = [
    at(anyPath, operand),
    at(
      anyPath,
      fc.record({ op: cmp, v: operand }).map(({ op, v }) => ({ [op]: v })),
    ),
    at(nullPaths, fc.constantFrom(null, { $eq: null }, { $ne: null })),
    at(anyPath, inOp(operand)),
    at(nullPaths, inOp(scalar)),
    at(
      anyPath,
      fc.boolean().map((b) => ({ $exists: b })),
    ),
    at(
      full ? FULL_PATHS : ['arr', 'objs'],
      fc.integer({ min: 0, max: 3 }).map((n) => ({ $size: n })),
    ),
    at(
      full ? FULL_PATHS : ['arr', 'objs.x'],
      fc.array(intArb, { minLength: 1, maxLength: 2 }).map((v) => ({ $all: v })),
    ),
    at(
      arrays,
      fc.record({ $gte: intArb, $lt: intArb }).map((r) => ({ $elemMatch: r })),
    ),
    at(
      full ? FULL_PATHS : ['objs'],
      fc.record({ x: fc.oneof(intArb, fc.record({ $gt: intArb })) }).map((r) => ({ $elemMatch: r })),
    ),
    at(
      full ? FULL_PATHS : ['s', 'objs.y'],
      fc
        .record({
          p: fc.constantFrom(...(full ? FULL_REGEXES : REGEXES)),
          o: fc.constantFrom('', 'i', 'm', 's'),
        })
        .map(({ p, o }) => (o ? { $regex: p, $options: o } : { $regex: p })),
    ),
    at(
      full ? FULL_PATHS : ['arr', 'objs.x'],
      fc
        .record({ d: fc.constantFrom(2, 3, -3), r: fc.constantFrom(0, 1, -1) })
        .map(({ d, r }) => ({ $mod: [d, r] })),
    ),
    at(
      anyPath,
      fc.record({ op: cmp, v: full ? scalar : notNull }).map(({ op, v }) => ({ $not: { [op]: v } })),
    ),
  ];
  if (full) {
    const types = fc.constantFrom(
      'int',
      'double',
      'long',
      'number',
      'string',
      'array',
      'object',
      'null',
      'date',
      'objectId',
      'bool',
    );
    leaves.push(
      at(
        FULL_PATHS,
        types.map((t) => ({ $type: t })),
      ),
    );
  }
  return leaves;
}

/** A filter as JavaScript values (Dates, ObjectIds); toWire turns it into the request form. */
export function filterArb(full: boolean): fc.Arbitrary<Record<string, unknown>> {
  const leaf = fc.oneof(...leafArbs(full));
  return fc
    .letrec<{ f: Record<string, unknown> }>((tie) => ({
      f: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        leaf,
        leaf,
        fc
          .record({
            op: fc.constantFrom('$and', '$or', '$nor'),
            xs: fc.array(tie('f'), { minLength: 1, maxLength: 3 }),
          })
          .map(({ op, xs }) => ({ [op]: xs })),
        fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })),
      ),
    }))
    .f.map(plain);
}

export function sortArb(full: boolean): fc.Arbitrary<Record<string, 1 | -1>> {
  const paths = full
    ? ['n', 's', 'mixed', 'arr', 'objs.x', 'any', 'nested.p.q', 'gone']
    : ['n', 's', 'nested.p.q', 'gone'];
  return fc
    .uniqueArray(fc.constantFrom(...paths), { minLength: 1, maxLength: 2 })
    .chain((ps) =>
      fc
        .tuple(...ps.map(() => fc.constantFrom<1 | -1>(1, -1)))
        .map((dirs) => Object.fromEntries(ps.map((p, i) => [p, dirs[i]!]))),
    );
}
