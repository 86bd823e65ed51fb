// The game configuration's entities: value sets, TypeScript shapes, and the TypeBox schemas of bodies and answers.
import { type TPartial, type TSchema, Type } from 'typebox';
import {
  AGGREGATION_TYPES,
  CALCULATIONS,
  DATA_TYPES,
  FILTER_OPERATORS,
  INDEXED_FIELD_TYPES,
  RESET_FREQUENCIES,
  SCRIPT_FOLDERS,
  SORT_ORDERS,
} from '../types/config.js';

// The shapes live in src/types/config.ts (the store and the data servers read them too); named here as before.
export {
  type AggregationType,
  type Calculation,
  type CloudScript,
  type Collector,
  type ConfigDoc,
  type CredentialView,
  type DataType,
  type EventAttribute,
  type FilterOperator,
  type FullConfig,
  type GameEvent,
  type IndexedType,
  type Leaderboard,
  type LeaderboardField,
  NUMERIC_AGGREGATIONS,
  type Ref,
  type RunningTotal,
  SCRIPT_FOLDERS,
  type ScriptFolder,
} from '../types/config.js';

/**
 * Short codes appear in paths, in collection names (`<shortCode>-leaderboard`) and in partition codes
 * (`LB.ATTR.VALUE`), so they hold no '-', '.' or '/'.
 */
const SHORT_CODE_PATTERN = '^[A-Za-z][A-Za-z0-9_]*$';
const SHORT_CODE_MAX = 64;
/** Credential names appear in runtime URLs (`/rs/{credential}/{secret}/...`). */
const CREDENTIAL_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';

// ---- Examples of the OpenAPI document: one small game, every entity referring to the one before. ----

const ref = (to: string) => ({ '@ref': to });
const ATTRIBUTE_EXAMPLE = {
  '@id': '/~events/winRace/~attributes/SCORE',
  name: 'Score',
  shortCode: 'SCORE',
  dataType: 'int',
  defaultAggregationType: 'MAX',
  defaultValue: 0,
};
const EVENT_EXAMPLE = {
  '@id': '/~events/winRace',
  name: 'Win Race',
  shortCode: 'winRace',
  description: 'A player finished a race',
  '~attributes': [ATTRIBUTE_EXAMPLE],
};
const RUNNING_TOTAL_EXAMPLE = {
  '@id': '/~runningTotals/bestScore',
  shortCode: 'bestScore',
  name: 'Best score',
  description: '',
  event: ref('/~events/winRace'),
  groupBy: [],
  collectors: [{ attribute: ref('/~events/winRace/~attributes/SCORE'), calculation: 'MAX' }],
};
const LEADERBOARD_EXAMPLE = {
  '@id': '/~leaderboards/topScores',
  shortCode: 'topScores',
  name: 'Top scores',
  description: '',
  fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'DESC' }],
  partitions: [],
  resetFrequency: 'NEVER',
};
const INDEXED_TYPE_EXAMPLE = {
  '@id': '/~indexedTypes/inventory',
  shortCode: 'inventory',
  name: 'Inventory',
  fields: [{ name: 'owner', type: 'string' }],
};
export const CREDENTIAL_EXAMPLE = { '@id': '/~credentials/server', name: 'server' };
export const FULL_CONFIG_EXAMPLE = {
  apiKey: 'k7Qd2mXp9LwZ4rTb8nYc',
  '~events': [EVENT_EXAMPLE],
  '~runningTotals': [RUNNING_TOTAL_EXAMPLE],
  '~leaderboards': [LEADERBOARD_EXAMPLE],
  '~indexedTypes': [INDEXED_TYPE_EXAMPLE],
  '~credentials': [CREDENTIAL_EXAMPLE],
};
/** An example as the answer of a create or read, and as a list of one. */
const one = (example: unknown) => ({ examples: [example] });

// ---- Schemas. Inputs accept an optional @id (a GET answer can be sent back); answers always carry it. ----

export const ShortCode = Type.String({
  minLength: 1,
  maxLength: SHORT_CODE_MAX,
  pattern: SHORT_CODE_PATTERN,
});
export const CredentialName = Type.String({ minLength: 1, maxLength: 64, pattern: CREDENTIAL_NAME_PATTERN });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });
const Id = Type.String({ maxLength: 300 });
const RefSchema = Type.Object(
  { '@ref': Type.String({ minLength: 1, maxLength: 300 }) },
  { additionalProperties: false },
);
const strict = { additionalProperties: false } as const;

export const AttributeInput = Type.Object(
  {
    '@id': Type.Optional(Id),
    name: Name,
    shortCode: ShortCode,
    dataType: Type.Enum(DATA_TYPES),
    defaultAggregationType: Type.Enum(AGGREGATION_TYPES),
    defaultValue: Type.Optional(Type.Unknown()),
  },
  { ...strict, ...one(ATTRIBUTE_EXAMPLE) },
);

export const EventInput = Type.Object(
  {
    '@id': Type.Optional(Id),
    name: Name,
    shortCode: ShortCode,
    description: Description,
    '~attributes': Type.Optional(Type.Array(AttributeInput, { maxItems: 256 })),
  },
  { ...strict, ...one(EVENT_EXAMPLE) },
);

const FilterSchema = Type.Object({ operator: Type.Enum(FILTER_OPERATORS), value: Type.Unknown() }, strict);
const CollectorSchema = Type.Object(
  { attribute: RefSchema, calculation: Type.Enum(CALCULATIONS), filter: Type.Optional(FilterSchema) },
  strict,
);

export const RunningTotalInput = Type.Object(
  {
    '@id': Type.Optional(Id),
    shortCode: ShortCode,
    name: Name,
    description: Type.Optional(Description),
    event: RefSchema,
    groupBy: Type.Optional(Type.Array(RefSchema, { maxItems: 8 })),
    collectors: Type.Array(CollectorSchema, { minItems: 1, maxItems: 64 }),
  },
  { ...strict, ...one(RUNNING_TOTAL_EXAMPLE) },
);

const LeaderboardFieldSchema = Type.Object(
  { runningTotal: RefSchema, collector: ShortCode, sort: Type.Enum(SORT_ORDERS) },
  strict,
);
const PartitionSchema = Type.Object({ attribute: ShortCode }, strict);

export const LeaderboardInput = Type.Object(
  {
    '@id': Type.Optional(Id),
    shortCode: ShortCode,
    name: Name,
    description: Type.Optional(Description),
    fields: Type.Array(LeaderboardFieldSchema, { minItems: 1, maxItems: 16 }),
    partitions: Type.Optional(Type.Array(PartitionSchema, { maxItems: 8 })),
    resetFrequency: Type.Optional(Type.Enum(RESET_FREQUENCIES)),
  },
  { ...strict, ...one(LEADERBOARD_EXAMPLE) },
);

const IndexedFieldSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    type: Type.Enum(INDEXED_FIELD_TYPES),
  },
  strict,
);

export const IndexedTypeInput = Type.Object(
  {
    '@id': Type.Optional(Id),
    shortCode: ShortCode,
    name: Name,
    fields: Type.Array(IndexedFieldSchema, { maxItems: 32 }),
  },
  { ...strict, ...one(INDEXED_TYPE_EXAMPLE) },
);

export const CredentialInput = Type.Object(
  { '@id': Type.Optional(Id), name: CredentialName },
  { ...strict, ...one(CREDENTIAL_EXAMPLE) },
);

/**
 * Cloud Code bounds (docs/cloud-code.md, "Storage and versioning"): a script's source in UTF-8 bytes, all of a
 * game's scripts together, and how many a game holds. The original platform capped a request at 256 KB.
 */
export const SCRIPT_LIMITS = { scriptBytes: 256 * 1024, totalBytes: 2 * 1024 * 1024, scripts: 1000 } as const;

/** Script short codes: event short codes, request and response classes, credential names, module names. */
export const ScriptShortCode = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z_][A-Za-z0-9_-]*$',
});
export const ScriptFolderSchema = Type.Enum(SCRIPT_FOLDERS);
const SCRIPT_EXAMPLE = {
  folder: 'event',
  shortCode: 'winRace',
  script: '// Cloud Code for winRace\nSpark.setScriptData("ok", true);\n',
};
const Source = Type.String({ maxLength: SCRIPT_LIMITS.scriptBytes });
/** PUT ~scripts/{folder}/{shortCode}: the source. */
export const ScriptBody = Type.Object(
  { script: Source },
  { ...strict, examples: [{ script: SCRIPT_EXAMPLE.script }] },
);
/** A script in the whole configuration. */
export const ScriptInput = Type.Object(
  { folder: ScriptFolderSchema, shortCode: ScriptShortCode, script: Source },
  { ...strict, ...one(SCRIPT_EXAMPLE) },
);
export const ScriptOut = Type.Object(
  { folder: Type.String(), shortCode: Type.String(), script: Type.String() },
  one(SCRIPT_EXAMPLE),
);

/** PUT /config: a whole configuration; a missing collection means "none". The apiKey is ignored. */
export const FullConfigInput = Type.Object(
  {
    apiKey: Type.Optional(Type.String({ maxLength: 128 })),
    '~events': Type.Optional(Type.Array(EventInput, { maxItems: 10_000 })),
    '~runningTotals': Type.Optional(Type.Array(RunningTotalInput, { maxItems: 10_000 })),
    '~leaderboards': Type.Optional(Type.Array(LeaderboardInput, { maxItems: 10_000 })),
    '~indexedTypes': Type.Optional(Type.Array(IndexedTypeInput, { maxItems: 1_000 })),
    '~credentials': Type.Optional(Type.Array(CredentialInput, { maxItems: 1_000 })),
    '~scripts': Type.Optional(Type.Array(ScriptInput, { maxItems: SCRIPT_LIMITS.scripts })),
  },
  { ...strict, ...one(FULL_CONFIG_EXAMPLE) },
);

/** Update bodies: any subset of the create fields (PUT and PATCH change only the fields sent). */
export function partialOf<T extends TSchema>(schema: T): TPartial<T> {
  const examples = (schema as { examples?: unknown[] }).examples;
  return Type.Partial(schema, { ...strict, ...(examples ? { examples } : {}) });
}

// ---- Answers: every field present, in a fixed order. ----

export const AttributeOut = Type.Object(
  {
    '@id': Type.String(),
    name: Type.String(),
    shortCode: Type.String(),
    dataType: Type.String(),
    defaultAggregationType: Type.String(),
    defaultValue: Type.Unknown(),
  },
  one(ATTRIBUTE_EXAMPLE),
);
export const EventOut = Type.Object(
  {
    '@id': Type.String(),
    name: Type.String(),
    shortCode: Type.String(),
    description: Type.String(),
    '~attributes': Type.Array(AttributeOut),
  },
  one(EVENT_EXAMPLE),
);
const RefOut = Type.Object({ '@ref': Type.String() });
export const RunningTotalOut = Type.Object(
  {
    '@id': Type.String(),
    shortCode: Type.String(),
    name: Type.String(),
    description: Type.String(),
    event: RefOut,
    groupBy: Type.Array(RefOut),
    collectors: Type.Array(
      Type.Object({
        attribute: RefOut,
        calculation: Type.String(),
        filter: Type.Optional(Type.Object({ operator: Type.String(), value: Type.Unknown() })),
      }),
    ),
  },
  one(RUNNING_TOTAL_EXAMPLE),
);
export const LeaderboardOut = Type.Object(
  {
    '@id': Type.String(),
    shortCode: Type.String(),
    name: Type.String(),
    description: Type.String(),
    fields: Type.Array(Type.Object({ runningTotal: RefOut, collector: Type.String(), sort: Type.String() })),
    partitions: Type.Array(Type.Object({ attribute: Type.String() })),
    resetFrequency: Type.String(),
  },
  one(LEADERBOARD_EXAMPLE),
);
export const IndexedTypeOut = Type.Object(
  {
    '@id': Type.String(),
    shortCode: Type.String(),
    name: Type.String(),
    fields: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
  },
  one(INDEXED_TYPE_EXAMPLE),
);
export const CredentialOut = Type.Object(
  { '@id': Type.String(), name: Type.String() },
  one(CREDENTIAL_EXAMPLE),
);
export const FullConfigOut = Type.Object(
  {
    apiKey: Type.String(),
    '~events': Type.Array(EventOut),
    '~runningTotals': Type.Array(RunningTotalOut),
    '~leaderboards': Type.Array(LeaderboardOut),
    '~indexedTypes': Type.Array(IndexedTypeOut),
    '~credentials': Type.Array(CredentialOut),
    /** Present when the game has scripts. */
    '~scripts': Type.Optional(Type.Array(ScriptOut)),
  },
  one(FULL_CONFIG_EXAMPLE),
);
