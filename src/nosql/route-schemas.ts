// The nosql routes' bodies and answers as the OpenAPI document shows them, with examples.
//
// The handlers check these bodies themselves (a filter's operators, extended JSON, NOSQL_BAD_BODY and the query
// errors), so the schemas are given to the document only (documented() in src/route/openapi.ts). So are answers
// made of stored documents, which are written as JSON text under a size limit.
import { Type } from 'typebox';

const Document = Type.Record(Type.String(), Type.Unknown(), {
  description: 'a document in extended JSON ($oid, $date, $numberLong...)',
});
const Filter = Type.Record(Type.String(), Type.Unknown(), { description: 'a MongoDB query filter' });
const KeyMap = Type.Record(Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)]));
const ArrayFilters = Type.Array(Filter, {
  description:
    'one filter per $[<identifier>] of the update, on that identifier (e.g. [{"e.score": {"$gte": 10}}])',
});

const PLAYER = {
  _id: { $oid: '6740a1b2c3d4e5f601234567' },
  displayName: 'Ada',
  level: 12,
  created: { $date: { $numberLong: '1795435200000' } },
};
const Documents = Type.Array(Document, { examples: [[PLAYER]] });

export const FindBody = Type.Object(
  {
    query: Type.Optional(Filter),
    fields: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'a projection' })),
    sort: Type.Optional(KeyMap),
    skip: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0, description: '0, absent or above 10000: 10000' })),
    hint: Type.Optional(
      Type.Union([Type.String(), KeyMap], {
        description: 'an index name or keys; checked to exist, not forced',
      }),
    ),
    comment: Type.Optional(Type.Unknown({ description: 'accepted and left alone' })),
    maxTimeMS: Type.Optional(
      Type.Integer({ minimum: 0, description: 'checked between batches; 0: the server limit only' }),
    ),
    batchSize: Type.Optional(Type.Integer({ minimum: 0, description: 'accepted; the answer is one batch' })),
  },
  {
    additionalProperties: false,
    examples: [
      { query: { level: { $gte: 10 } }, fields: { displayName: 1 }, sort: { level: -1 }, limit: 20 },
    ],
  },
);
export const FindAnswer = Documents;

export const ExplainAnswer = Type.Object(
  {
    collection: Type.String(),
    indexesUsed: Type.Array(Type.String()),
    summary: Type.Array(Type.String(), {
      description: 'The plan in words: which index found the documents and which gave the sort order',
    }),
    plan: Type.Unknown({ description: "PostgreSQL's EXPLAIN (FORMAT JSON)" }),
  },
  {
    examples: [
      {
        collection: 'player',
        indexesUsed: ['level_-1'],
        summary: [
          'The index "level_-1" found the matching documents on "level".',
          'The index "level_-1" gave the sort order (read forward), and the read stopped once the limit was reached.',
        ],
        plan: [{ Plan: { 'Node Type': 'Limit' } }],
      },
    ],
  },
);

export const CountBody = Type.Object(
  { query: Type.Optional(Filter) },
  { additionalProperties: false, examples: [{ query: { level: { $gte: 10 } } }] },
);
export const CountAnswer = Type.Object({ count: Type.Integer() }, { examples: [{ count: 42 }] });

export const InsertBody = Type.Union([Type.Array(Document, { minItems: 1 }), Document], {
  examples: [[{ displayName: 'Ada', level: 12 }]],
});
export const InsertAnswer = Type.Array(Document, {
  description: 'the documents as stored, with their _id',
  examples: [[{ _id: PLAYER._id, displayName: 'Ada', level: 12 }]],
});

export const SaveBody = Type.Object({}, { additionalProperties: true, examples: [PLAYER] });
export const SaveAnswer = Type.Object({}, { additionalProperties: true, examples: [PLAYER] });

export const UpdateBody = Type.Object(
  {
    query: Type.Optional(Filter),
    update: Type.Record(Type.String(), Type.Unknown(), { description: 'update operators ($set, $inc...)' }),
    arrayFilters: Type.Optional(ArrayFilters),
    multi: Type.Optional(Type.Boolean({ default: false })),
    upsert: Type.Optional(Type.Boolean({ default: false })),
  },
  {
    additionalProperties: false,
    examples: [{ query: { displayName: 'Ada' }, update: { $inc: { level: 1 } }, multi: false }],
  },
);
export const UpdateAnswer = Type.Object(
  {
    matchedCount: Type.Integer(),
    modifiedCount: Type.Integer(),
    upsertedCount: Type.Integer(),
    upsertedId: Type.Unknown({ description: 'the _id of the inserted document (extended JSON), or null' }),
  },
  { examples: [{ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null }] },
);

export const RemoveBody = Type.Object(
  { query: Filter },
  { additionalProperties: false, examples: [{ query: { level: { $lt: 2 } } }] },
);
export const RemoveAnswer = Type.Object(
  { deletedCount: Type.Integer(), message: Type.String() },
  { examples: [{ deletedCount: 3, message: 'OK' }] },
);

export const FindAndModifyBody = Type.Object(
  {
    query: Type.Optional(Filter),
    sort: Type.Optional(KeyMap),
    update: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'update operators, or a replacement document',
      }),
    ),
    arrayFilters: Type.Optional(ArrayFilters),
    remove: Type.Optional(Type.Boolean({ default: false, description: 'remove the document instead' })),
    new: Type.Optional(Type.Boolean({ default: false, description: 'answer the document after the update' })),
    upsert: Type.Optional(Type.Boolean({ default: false })),
    fields: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'a projection of value' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ query: { displayName: 'Ada' }, update: { $inc: { level: 1 } }, new: true }],
  },
);
export const FindAndModifyAnswer = Type.Object(
  {
    value: Type.Union([Document, Type.Null()], {
      description: 'the document before (or, with new, after); null',
    }),
    lastErrorObject: Type.Object({
      n: Type.Integer(),
      updatedExisting: Type.Optional(Type.Boolean()),
      upserted: Type.Optional(
        Type.Unknown({ description: 'the _id of the inserted document (extended JSON)' }),
      ),
    }),
  },
  { examples: [{ value: { ...PLAYER, level: 13 }, lastErrorObject: { n: 1, updatedExisting: true } }] },
);

export const DistinctBody = Type.Object(
  { key: Type.String({ description: 'a field path' }), query: Type.Optional(Filter) },
  { additionalProperties: false, examples: [{ key: 'country', query: { level: { $gte: 10 } } }] },
);
export const DistinctAnswer = Type.Object(
  {
    values: Type.Array(Type.Unknown(), {
      description: 'the different values, in BSON order (extended JSON)',
    }),
  },
  { examples: [{ values: ['FR', 'GB', 'US'] }] },
);

export const AggregateBody = Type.Array(Type.Record(Type.String(), Type.Unknown()), {
  description: 'the pipeline: an array of stages',
  examples: [[{ $match: { level: { $gte: 10 } } }, { $group: { _id: null, players: { $sum: 1 } } }]],
});
export const AggregateAnswer = Type.Array(Document, { examples: [[{ _id: null, players: 42 }]] });

export const IndexKeys = Type.Record(Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)]), {
  description: 'key map: field path to 1 (ascending) or -1 (descending)',
  examples: [{ level: -1, country: 1 }],
});
export const IndexesAnswer = Type.Array(
  Type.Object({
    v: Type.Integer(),
    key: KeyMap,
    name: Type.String(),
    unique: Type.Optional(Type.Boolean()),
  }),
  {
    examples: [
      [
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { level: -1 }, name: 'level_-1' },
      ],
    ],
  },
);

export const DatabaseStatsAnswer = Type.Object(
  {
    db: Type.String(),
    stage: Type.String(),
    collections: Type.Integer(),
    objects: Type.Integer(),
    avgObjSize: Type.Integer(),
    dataSize: Type.Integer(),
    indexes: Type.Integer(),
    indexSize: Type.Integer(),
  },
  {
    examples: [
      {
        db: 'k7Qd2mXp9LwZ4rTb8nYc',
        stage: 'preview',
        collections: 5,
        objects: 1200,
        avgObjSize: 180,
        dataSize: 216000,
        indexes: 6,
        indexSize: 65536,
      },
    ],
  },
);
export const CollectionStatsAnswer = Type.Object(
  {
    ns: Type.String(),
    count: Type.Integer(),
    size: Type.Integer(),
    avgObjSize: Type.Integer(),
    nindexes: Type.Integer(),
    totalIndexSize: Type.Integer(),
    indexSizes: Type.Record(Type.String(), Type.Integer()),
  },
  {
    examples: [
      {
        ns: 'k7Qd2mXp9LwZ4rTb8nYc.player',
        count: 1000,
        size: 180000,
        avgObjSize: 180,
        nindexes: 2,
        totalIndexSize: 49152,
        indexSizes: { _id_: 32768, 'level_-1': 16384 },
      },
    ],
  },
);
