// The worst legal inputs of each kind (issue 20): large but accepted bodies that once froze or crashed the
// server. Shared by `npm run bench hostile` (figures) and test/hostile/hostile.test.ts (a 1 s bound).

/** The runtime collections the cases write to (`script.<name>`), made before the first case. */
export const HOSTILE_COLLECTIONS = ['hostile', 'many', 'deep'];

/** Talks to one game's preview stage: `path` is below `.../mongo/`. */
export type Call = (path: string, body: unknown) => Promise<{ status: number; text: string }>;

export interface HostileCase {
  name: string;
  /** Puts what the case needs in place (not timed). */
  setup?: (call: Call) => Promise<void>;
  path: string;
  /** Built before the timed window, so that building it never counts as the server's wait. */
  body: () => unknown;
  /** Answers the case may legitimately get: the input is served, or refused with a 4xx naming a limit. */
  accept: readonly number[];
  /** A read that may run into the statement limit, which answers 503 QUERY_TIMEOUT (and ends the statement). */
  mayTimeOut?: boolean;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * Sizes: at a scale of 1 each body is close to the 4 MB body limit (500,000 numbers take about 3.4 MB; 200,000
 * fields about 3 MB; the figures are 200,000 values and 1,000,000 array elements).
 */
export function hostileCases(scale = 1, documents = 50_000): HostileCase[] {
  const n = Math.round(500_000 * scale);
  const fields = Math.round(200_000 * scale);
  const big = Math.round(1_000_000 * scale);
  const served = [200] as const;
  const servedOrRefused = [200, 400, 413] as const;
  return [
    {
      name: `$addToSet $each of ${n} distinct numbers into an array of ${n}`,
      setup: async (call) => {
        await expectOk(call('collection/script.hostile/insert', { _id: 'set', a: range(n) }));
      },
      path: 'collection/script.hostile/update',
      body: () => ({
        query: { _id: 'set' },
        update: { $addToSet: { a: { $each: range(n).map((i) => n + i) } } },
      }),
      accept: served,
    },
    {
      name: `$pull $in of ${n} values from an array of ${2 * n}`,
      path: 'collection/script.hostile/update',
      body: () => ({ query: { _id: 'set' }, update: { $pull: { a: { $in: range(n) } } } }),
      accept: served,
    },
    {
      name: `$pullAll of ${n} values`,
      path: 'collection/script.hostile/update',
      body: () => ({ query: { _id: 'set' }, update: { $pullAll: { a: range(n).map((i) => n + i) } } }),
      // Not an operator of this engine yet (issue 16): refused at once.
      accept: [200, 400],
    },
    {
      name: `$push $each of ${n} values at $position 0`,
      path: 'collection/script.hostile/update',
      body: () => ({ query: { _id: 'set' }, update: { $push: { b: { $each: range(n), $position: 0 } } } }),
      accept: served,
    },
    {
      name: `$push $each of ${fields} values with $sort`,
      path: 'collection/script.hostile/update',
      body: () => ({
        query: { _id: 'set' },
        update: { $push: { c: { $each: range(fields).reverse(), $sort: 1 } } },
      }),
      accept: served,
    },
    {
      name: `$set of ${fields} fields`,
      path: 'collection/script.hostile/update',
      body: () => ({
        query: { _id: 'set' },
        update: { $set: Object.fromEntries(range(fields).map((i) => [`f${i}`, i])) },
      }),
      accept: servedOrRefused,
    },
    {
      name: `insert of a document of ${fields} fields`,
      path: 'collection/script.hostile/insert',
      body: () => ({ _id: 'wide', ...Object.fromEntries(range(fields).map((i) => [`f${i}`, i])) }),
      accept: servedOrRefused,
    },
    {
      name: `find with $in of ${n} numbers`,
      path: 'collection/script.hostile/find',
      body: () => ({ query: { _id: { $in: range(n) } }, fields: { _id: 1 } }),
      accept: served,
      mayTimeOut: true,
    },
    {
      name: `count with $nin of ${n} numbers against arrays`,
      path: 'collection/script.hostile/count',
      body: () => ({ query: { a: { $nin: range(n) } } }),
      accept: served,
      mayTimeOut: true,
    },
    {
      name: `a document holding an array of ${big} elements, inserted then unwound and counted`,
      setup: async (call) => {
        await expectOk(
          call('collection/script.hostile/insert', { _id: 'big', z: new Array(big).fill(0) }),
          [200, 400, 413],
        );
      },
      path: 'collection/script.hostile/aggregate',
      body: () => [{ $match: { _id: 'big' } }, { $unwind: '$z' }, { $count: 'n' }],
      accept: servedOrRefused,
    },
    {
      name: `$group $push and $addToSet of an array of ${big} elements`,
      path: 'collection/script.hostile/aggregate',
      body: () => [
        { $match: { _id: 'big' } },
        { $unwind: '$z' },
        { $group: { _id: null, set: { $addToSet: '$z' }, all: { $push: '$z' } } },
      ],
      accept: servedOrRefused,
    },
    {
      name: `$sort of documents by an array of ${big} elements`,
      path: 'collection/script.hostile/aggregate',
      body: () => [{ $project: { z: 1 } }, { $sort: { z: -1 } }, { $project: { _id: 1 } }],
      accept: servedOrRefused,
    },
    {
      name: `$group $addToSet over ${documents} documents of distinct values`,
      setup: async (call) => {
        for (let i = 0; i < documents; i += 5000) {
          const batch = range(Math.min(5000, documents - i)).map((k) => ({
            s: `a${i + k}`,
            t: 'x'.repeat(40),
          }));
          await expectOk(call('collection/script.many/insert', batch));
        }
      },
      path: 'collection/script.many/aggregate',
      body: () => [{ $group: { _id: null, s: { $addToSet: '$s' } } }, { $project: { _id: 1 } }],
      accept: servedOrRefused,
    },
    {
      name: `a correlated $lookup of ${documents} documents into themselves (a nested loop)`,
      path: 'collection/script.many/aggregate',
      body: () => [
        {
          $lookup: {
            from: 'script.many',
            let: { s: '$s' },
            pipeline: [{ $match: { $expr: { $eq: ['$s', '$$s'] } } }],
            as: 'same',
          },
        },
        { $count: 'n' },
      ],
      accept: servedOrRefused,
    },
    {
      name: `$facet with 990 sub-pipelines, $bucketAuto and $sortByCount over ${documents} documents`,
      path: 'collection/script.many/aggregate',
      body: () => [
        {
          $facet: {
            ...Object.fromEntries(range(990).map((i) => [`f${i}`, [{ $count: 'n' }]])),
            auto: [{ $bucketAuto: { groupBy: '$s', buckets: 1000 } }, { $count: 'n' }],
            top: [{ $sortByCount: '$t' }],
          },
        },
        { $project: { top: 1 } },
      ],
      accept: servedOrRefused,
    },
    {
      name: `nested-repetition regular expression over ${documents} documents`,
      path: 'collection/script.many/find',
      body: () => ({ query: { s: { $regex: '(((a{100}){100}){100})' } } }),
      accept: [200, 400],
      mayTimeOut: true,
    },
    {
      name: `the largest accepted repetition, (?:a{70}){70}, over ${documents} documents`,
      path: 'collection/script.many/count',
      body: () => ({ query: { t: { $regex: '(?:x{70}){70}' } } }),
      accept: [200, 400],
      mayTimeOut: true,
    },
    {
      name: `catastrophic-backtracking regular expression over ${documents} documents`,
      path: 'collection/script.many/count',
      body: () => ({ query: { t: { $regex: '^(x+x+)+y$' } } }),
      accept: [200, 400],
      mayTimeOut: true,
    },
    {
      name: `$regex ".*x" in a $match run by the server, over a ${n}-character string`,
      setup: async (call) => {
        await expectOk(call('collection/script.hostile/insert', { _id: 'long', s: 'a'.repeat(n) }));
      },
      path: 'collection/script.hostile/aggregate',
      body: () => [{ $match: { _id: 'long' } }, { $project: { s: 1 } }, { $match: { s: { $regex: '.*x' } } }],
      accept: served,
    },
    {
      name: '$pull {$regex: "^(a|a)*$"} from an array holding 28 a\'s and a b',
      setup: async (call) => {
        await expectOk(
          call('collection/script.hostile/insert', { _id: 'pullre', a: [`${'a'.repeat(28)}b`] }),
        );
      },
      path: 'collection/script.hostile/update',
      body: () => ({ query: { _id: 'pullre' }, update: { $pull: { a: { $regex: '^(a|a)*$' } } } }),
      accept: served,
    },
    {
      name: `$regex of 200 alternations over the ${n}-character string, past the step budget`,
      path: 'collection/script.hostile/aggregate',
      body: () => [
        { $match: { _id: 'long' } },
        { $project: { s: 1 } },
        { $match: { s: { $regex: '(a|b|c|d){1,200}z' } } },
      ],
      // 400 QUERY_TOO_LARGE at scale 1 (about 1,600 state visits per character); a small scale may be served.
      accept: servedOrRefused,
    },
    {
      name: 'a document nested 100 levels deep, inserted 200 times',
      path: 'collection/script.deep/insert',
      body: () => range(200).map(() => nest(99)),
      accept: served,
    },
  ];
}

function nest(levels: number): Record<string, unknown> {
  let doc: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < levels; i++) doc = { d: doc };
  return doc;
}

async function expectOk(
  answer: Promise<{ status: number; text: string }>,
  accept: readonly number[] = [200],
): Promise<void> {
  const { status, text } = await answer;
  if (!accept.includes(status)) throw new Error(`setup answered ${status}: ${text.slice(0, 300)}`);
}
