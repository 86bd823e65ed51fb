// The game configuration's shapes: its value sets and the TypeScript types of the stored document. Neutral ground:
// the configuration (src/config), the data servers (src/nosql, src/runtime) and the store all read them, and
// this module imports none of them. The TypeBox schemas of bodies and answers stay in src/config/config-types.ts.

export const DATA_TYPES = ['int', 'number', 'string', 'json'] as const;
export const AGGREGATION_TYPES = [
  'MAX',
  'MIN',
  'SUM',
  'COUNT',
  'LAST',
  'SCRIPT',
  'GROUPED',
  'SUPPLEMENTAL',
] as const;
export const CALCULATIONS = ['MAX', 'MIN', 'SUM', 'COUNT', 'LAST', 'SUPPLEMENTAL'] as const;
/** Aggregations that compare or add values: refused on string and json attributes. */
export const NUMERIC_AGGREGATIONS: readonly string[] = ['MAX', 'MIN', 'SUM'];
export const FILTER_OPERATORS = ['EQ', 'NE', 'GT', 'GE', 'LT', 'LE'] as const;
export const SORT_ORDERS = ['ASC', 'DESC'] as const;
export const RESET_FREQUENCIES = ['NEVER', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
export const INDEXED_FIELD_TYPES = ['string', 'number'] as const;

export type DataType = (typeof DATA_TYPES)[number];
export type AggregationType = (typeof AGGREGATION_TYPES)[number];
export type Calculation = (typeof CALCULATIONS)[number];
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Ref {
  '@ref': string;
}

export interface EventAttribute {
  '@id': string;
  name: string;
  shortCode: string;
  dataType: DataType;
  defaultAggregationType: AggregationType;
  defaultValue: unknown;
}

export interface GameEvent {
  '@id': string;
  name: string;
  shortCode: string;
  description: string;
  '~attributes': EventAttribute[];
}

export interface Collector {
  attribute: Ref;
  calculation: Calculation;
  filter?: { operator: FilterOperator; value: unknown };
}

export interface RunningTotal {
  '@id': string;
  shortCode: string;
  name: string;
  description: string;
  event: Ref;
  groupBy: Ref[];
  collectors: Collector[];
}

export interface LeaderboardField {
  runningTotal: Ref;
  collector: string;
  sort: (typeof SORT_ORDERS)[number];
}

export interface Leaderboard {
  '@id': string;
  shortCode: string;
  name: string;
  description: string;
  fields: LeaderboardField[];
  partitions: { attribute: string }[];
  resetFrequency: (typeof RESET_FREQUENCIES)[number];
}

export interface IndexedType {
  '@id': string;
  shortCode: string;
  name: string;
  fields: { name: string; type: (typeof INDEXED_FIELD_TYPES)[number] }[];
}

/** Cloud Code folders, as in the original platform's export (issue 17). */
export const SCRIPT_FOLDERS = ['event', 'request', 'response', 'system', 'callbacks', 'modules'] as const;
export type ScriptFolder = (typeof SCRIPT_FOLDERS)[number];

/** One Cloud Code script: `{folder}/{shortCode}` and its source. */
export interface CloudScript {
  folder: ScriptFolder;
  shortCode: string;
  script: string;
}

export interface CredentialView {
  '@id': string;
  name: string;
}

/** The stored configuration document: everything but the apiKey and the credentials (kept in their own table). */
export interface ConfigDoc {
  '~events': GameEvent[];
  '~runningTotals': RunningTotal[];
  '~leaderboards': Leaderboard[];
  '~indexedTypes': IndexedType[];
  /** Cloud Code, travelling with the rest of the configuration (snapshots, publish, revert, copy, clusters). */
  '~scripts'?: CloudScript[];
}

/** The whole configuration of a game: what GET /config?full=true answers and PUT /config takes. */
export interface FullConfig extends ConfigDoc {
  apiKey: string;
  '~credentials': CredentialView[];
}
