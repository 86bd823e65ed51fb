// Differential tests: generated documents, filters and sorts run through the SQL compiler on each store, and
// through mingo and matchesFilter / compareBySort; every answer must agree (mingo only on "safe" cases, see
// docs/query-engine.md for its known deviations).
import fc from 'fast-check';
import { Query } from 'mingo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docArb, filterArb, sortArb } from '../../src/query/arbitraries.test-util.js';
import { compileFilter, matchesFilter, parseFilter } from '../../src/query/filter.js';
import { type ArrayFacts, entriesTest } from '../../src/query/filter-sql.js';
import { compareBySort, compileSort, parseSort } from '../../src/query/sort.js';
import { type Doc, idKey, storedText, toWire, type Value } from '../../src/query/values.js';
import { STORES, type TestStore } from './test-store.test-util.js';

/**
 * A case is one (document, filter) answer. Per store and run: SAFE_COLLECTIONS generated collections of 8 to
 * 12 documents, each queried with FILTERS_PER_COLLECTION generated filters in one SQL statement (at least
 * 10,000 cases, all also checked against mingo), plus FULL_COLLECTIONS over every value type (checked
 * against matchesFilter), plus sorts.
 */
const SAFE_COLLECTIONS = 21;
const FULL_COLLECTIONS = 10;
const FILTERS_PER_COLLECTION = 60;
const MIN_DOCS = 8;
const SORTS_PER_COLLECTION = 4;
const MIN_SAFE_CASES = SAFE_COLLECTIONS * FILTERS_PER_COLLECTION * MIN_DOCS;

let collectionSeq = 0;
const counted = { safe: 0, full: 0, entries: 0 };

async function insertDocs(
  store: TestStore,
  docs: Doc[],
  before?: (name: string) => Promise<void>,
): Promise<{ name: string; byId: Map<string, Doc> }> {
  collectionSeq += 1;
  const name = `c${collectionSeq}`;
  await before?.(name);
  const byId = new Map<string, Doc>();
  const rows = docs.map((doc, i) => {
    const withId: Doc = { _id: i, ...doc };
    byId.set(idKey(i), withId);
    return `{"id":${JSON.stringify(idKey(i))},"doc":${storedText(withId)}}`;
  });
  await store.query(
    `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
     SELECT 'g', 'live', $1, x ->> 'id', x -> 'doc' FROM jsonb_array_elements($2::jsonb) AS x`,
    [name, `[${rows.join(',')}]`],
  );
  return { name, byId };
}

/**
 * The collection's multikey record as the triggers wrote it, checked against the documents (exactly the
 * top-level fields holding an array somewhere below), as the facts a read compiles with.
 */
async function factsOf(store: TestStore, name: string, docs: Doc[]): Promise<ArrayFacts> {
  const rows = await store.query<{ field: string }>(
    'SELECT field FROM nosql_multikey WHERE collection = $1 ORDER BY field',
    [name],
  );
  const recorded = rows.map((r) => r.field);
  const holds = (v: unknown): boolean =>
    Array.isArray(v) ||
    (v !== null &&
      typeof v === 'object' &&
      Object.getPrototypeOf(v) === Object.prototype &&
      Object.values(v).some(holds));
  const expected = [...new Set(docs.flatMap((d) => Object.keys(d).filter((k) => holds(d[k]))))].sort();
  expect(recorded).toEqual(expected);
  const fields = new Set(recorded);
  // Half the paths compile as if an index led with them (the key test alone), half with the stored-JSON
  // comparison beside it (filter-sql.ts), so both forms meet every generated filter.
  return { arrayFree: (f) => !fields.has(f), relied: new Set(), leadsIndex: (p) => p.length % 2 === 0 };
}

/**
 * Puts arrays (flat, nested, empty, of mixed types) on paths the generators keep scalar, in some documents,
 * as a collection that later gains an array on an indexed path does.
 */
const withArraysOnScalarPaths = (docs: Doc[], seed: number): Doc[] =>
  docs.map((d, i) => {
    if ((i + seed) % 3 !== 0) return d;
    const arrays: Value[] = [[1, 'a'], [[2], null], [], [3, [4, -1]], ['b', true]];
    const a = arrays[(i + seed) % arrays.length]!;
    if (seed % 2 === 0) return { ...d, n: a, s: [a, 'ab'] };
    return { ...d, nested: { p: { q: a } } };
  });

interface Mismatch {
  filter: unknown;
  doc: unknown;
  sql: boolean;
  /** Compiled with the collection's multikey record (array-free paths without the array arm). */
  withFacts: boolean;
  js: boolean;
  mingo?: boolean;
}

async function checkFilters(
  store: TestStore,
  docs: Doc[],
  filters: Record<string, unknown>[],
  safe: boolean,
): Promise<Mismatch[]> {
  const nodes = filters.map((f) => parseFilter(toWire(f as Value)));
  // Count entries (migration 0020) for every path a filter tests, written by the insert's trigger.
  const paths = new Map(
    nodes
      .flatMap((n) => (n.kind === 'and' ? n.children : [n]))
      .flatMap((n) => (n.kind === 'path' ? [[n.path, n.parts] as const] : [])),
  );
  const { name, byId } = await insertDocs(store, docs, async (collection) => {
    for (const parts of paths.values()) {
      await store.query(
        `INSERT INTO nosql_key_indexes (pg_name, game_id, stage, collection, path, ready)
         VALUES ($1, 'g', 'live', $2, $3::text[], true)`,
        [`dt_${collection}_${JSON.stringify(parts)}`, collection, parts],
      );
    }
  });
  const params: unknown[] = [name];
  const facts = await factsOf(store, name, docs);
  const entryIds = await store.query<{ path: string[]; id: string }>(
    'SELECT path, id FROM nosql_key_indexes WHERE collection = $1',
    [name],
  );
  const entryIndex = new Map(entryIds.map((r) => [r.path.join('.'), Number(r.id)]));
  const columns = nodes.flatMap((node, i) => [
    `${compileFilter(node, 'd.doc', params)} AS m${i}`,
    `${compileFilter(node, 'd.doc', params, facts)} AS f${i}`,
  ]);
  const rows = await store.query<Record<string, unknown>>(
    `SELECT d.id, ${columns.join(', ')} FROM nosql_documents AS d WHERE d.game_id = 'g' AND d.stage = 'live' AND d.collection = $1`,
    params,
  );
  expect(rows.length).toBe(docs.length);
  counted[safe ? 'safe' : 'full'] += rows.length * filters.length;
  const mismatches: Mismatch[] = [];
  filters.forEach((filter, i) => {
    const mingo = safe ? new Query(filter as Record<string, unknown>, {}) : undefined;
    for (const row of rows) {
      const doc = byId.get(row.id as string)!;
      const sql = row[`m${i}`] as boolean;
      const withFacts = row[`f${i}`] as boolean;
      const js = matchesFilter(nodes[i]!, doc);
      const viaMingo = mingo?.test(doc);
      if (sql !== js || withFacts !== js || (viaMingo !== undefined && viaMingo !== sql)) {
        mismatches.push({
          filter: toWire(filter as Value),
          doc: toWire(doc),
          sql,
          withFacts,
          js,
          mingo: viaMingo,
        });
      }
    }
  });
  // A count over the entries, where the filter is key tests on one array-free path: as many as match in JS.
  for (const [i, node] of nodes.entries()) {
    const countFacts = { ...facts, relied: new Set<string>(), keyEntries: (p: string) => entryIndex.get(p) };
    const countParams: unknown[] = [];
    const test = entriesTest(node, 'key', countParams, countFacts);
    if (test === undefined) continue;
    counted.entries += 1;
    const rows = await store.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM nosql_key_entries WHERE index_id = ${test.index} AND ${test.sql}`,
      countParams,
    );
    const js = [...byId.values()].filter((d) => matchesFilter(node, d)).length;
    if (Number(rows[0]!.n) !== js) {
      mismatches.push({
        filter: toWire(filters[i] as Value),
        doc: `count ${rows[0]!.n}`,
        sql: false,
        withFacts: false,
        js: false,
      });
    }
  }
  return mismatches;
}

/** SQL order must be sorted by compareBySort, and so must mingo's on safe cases (equal up to ties). */
async function checkSorts(
  store: TestStore,
  docs: Doc[],
  sorts: Record<string, 1 | -1>[],
  safe: boolean,
): Promise<string[]> {
  const { name, byId } = await insertDocs(store, docs);
  const facts = await factsOf(store, name, docs);
  const problems: string[] = [];
  for (const sort of sorts) {
    const spec = parseSort(sort);
    const cmp = compareBySort(spec);
    const orders: Array<[string, Doc[]]> = [];
    for (const [who, f] of [
      ['sql', undefined],
      ['sql with facts', facts],
    ] as const) {
      const rows = await store.query<{ id: string }>(
        `SELECT d.id FROM nosql_documents AS d WHERE d.collection = $1 ORDER BY ${compileSort(spec, 'd.doc', [], f)}`,
        [name],
      );
      orders.push([who, rows.map((r) => byId.get(r.id)!)]);
    }
    if (safe)
      orders.push([
        'mingo',
        new Query({}, {})
          .find<Doc>([...byId.values()])
          .sort(sort)
          .all(),
      ]);
    for (const [who, order] of orders) {
      for (let i = 1; i < order.length; i++) {
        if (cmp(order[i - 1]!, order[i]!) > 0) {
          problems.push(
            `${who} order for ${JSON.stringify(sort)}: ${JSON.stringify(toWire(order[i - 1]!))} before ${JSON.stringify(toWire(order[i]!))}`,
          );
        }
      }
    }
  }
  return problems;
}

describe.each(STORES)('query differential on $name', ({ open }) => {
  let store: TestStore;
  beforeAll(async () => {
    counted.safe = 0;
    counted.full = 0;
    counted.entries = 0;
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it(`${MIN_SAFE_CASES}+ generated (document, filter) cases → SQL, matchesFilter and mingo agree`, async () => {
    const arb = fc.tuple(
      fc.array(docArb(false), { minLength: MIN_DOCS, maxLength: 12 }),
      fc.array(filterArb(false), { minLength: FILTERS_PER_COLLECTION, maxLength: FILTERS_PER_COLLECTION }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([docs, filters]) => {
        expect((await checkFilters(store, docs, filters, true)).slice(0, 3)).toEqual([]);
      }),
      { numRuns: SAFE_COLLECTIONS, endOnFailure: true },
    );
    expect(counted.safe).toBeGreaterThanOrEqual(10_000);
    // Counts over count entries were compared too (filters of key tests on one array-free path).
    expect(counted.entries).toBeGreaterThanOrEqual(100);
  }, 120_000);

  it('generated cases over all value types → SQL and matchesFilter agree', async () => {
    const arb = fc.tuple(
      fc.array(docArb(true), { minLength: MIN_DOCS, maxLength: 12 }),
      fc.array(filterArb(true), { minLength: FILTERS_PER_COLLECTION, maxLength: FILTERS_PER_COLLECTION }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([docs, filters]) => {
        expect((await checkFilters(store, docs, filters, false)).slice(0, 3)).toEqual([]);
      }),
      { numRuns: FULL_COLLECTIONS, endOnFailure: true },
    );
  }, 120_000);

  it('arrays, nested arrays and mixed types on otherwise scalar paths → SQL with and without facts agree with matchesFilter', async () => {
    const arb = fc.tuple(
      fc.array(docArb(true), { minLength: MIN_DOCS, maxLength: 12 }),
      fc.array(filterArb(true), { minLength: FILTERS_PER_COLLECTION, maxLength: FILTERS_PER_COLLECTION }),
      fc.nat(),
      fc.array(sortArb(true), { minLength: SORTS_PER_COLLECTION, maxLength: SORTS_PER_COLLECTION }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([docs, filters, seed, sorts]) => {
        const mixed = withArraysOnScalarPaths(docs, seed);
        expect((await checkFilters(store, mixed, filters, false)).slice(0, 3)).toEqual([]);
        expect((await checkSorts(store, mixed, sorts, false)).slice(0, 3)).toEqual([]);
      }),
      { numRuns: FULL_COLLECTIONS, endOnFailure: true },
    );
  }, 120_000);

  it('generated sorts → SQL order and mingo order agree with compareBySort up to ties', async () => {
    for (const safe of [true, false]) {
      const arb = fc.tuple(
        fc.array(docArb(!safe), { minLength: 2, maxLength: 12 }),
        fc.array(sortArb(!safe), { minLength: SORTS_PER_COLLECTION, maxLength: SORTS_PER_COLLECTION }),
      );
      await fc.assert(
        fc.asyncProperty(arb, async ([docs, sorts]) => {
          expect((await checkSorts(store, docs, sorts, safe)).slice(0, 3)).toEqual([]);
        }),
        { numRuns: 40, endOnFailure: true },
      );
    }
  }, 120_000);
});
