// The options of find: filter, projection fields, sort, skip and limit, validated together, and the options
// MongoDB's find command also knows (hint, comment, maxTimeMS, batchSize).
import { queryErrors } from './errors.js';
import { type FilterNode, parseFilter } from './filter.js';
import { type IndexField, parseIndexKeys } from './indexes.js';
import { parseSort, type SortSpec } from './sort.js';

/** The most documents one find returns; a limit that is absent or 0, or above it, means this many (prior art). */
const MAX_FIND_LIMIT = 10_000;

/** An index named by its name or its keys, or `$natural` (no index: any order will do). */
export type Hint =
  | { kind: 'name'; name: string }
  | { kind: 'keys'; keys: IndexField[] }
  | { kind: 'natural' };

export interface FindOptions {
  filter: FilterNode;
  /** The raw projection, validated by projection.ts. */
  fields: unknown;
  sort: SortSpec;
  skip: number;
  limit: number;
  /** The index the caller expects to be used, checked to exist; PostgreSQL's planner still chooses. */
  hint: Hint | undefined;
  /** The find's time limit in milliseconds (maxTimeMS; undefined or 0: the server's statement timeout only). */
  maxTimeMs: number | undefined;
}

export interface FindOptionsInput {
  query?: unknown;
  fields?: unknown;
  sort?: unknown;
  skip?: unknown;
  limit?: unknown;
  hint?: unknown;
  /** Attached to the operation in MongoDB's logs; accepted and left alone. */
  comment?: unknown;
  maxTimeMS?: unknown;
  /** The size of a cursor's batches in MongoDB; a find answers in one piece, so accepted and left alone. */
  batchSize?: unknown;
}

export function parseFindOptions(input: FindOptionsInput): FindOptions {
  // Checked for its errors alone: the whole answer is one batch whatever it says.
  parseCount('batchSize', input.batchSize, Number.MAX_SAFE_INTEGER);
  return {
    filter: parseFilter(input.query),
    fields: input.fields,
    sort: parseSort(input.sort),
    skip: parseCount('skip', input.skip, Number.MAX_SAFE_INTEGER) ?? 0,
    limit: Math.min(
      parseCount('limit', input.limit, Number.MAX_SAFE_INTEGER) || MAX_FIND_LIMIT,
      MAX_FIND_LIMIT,
    ),
    hint: parseHint(input.hint),
    maxTimeMs: parseCount('maxTimeMS', input.maxTimeMS, Number.MAX_SAFE_INTEGER) || undefined,
  };
}

function parseHint(hint: unknown): Hint | undefined {
  if (hint === undefined || hint === null) return undefined;
  if (typeof hint === 'string') {
    if (hint === '') throw queryErrors.badFindOption('hint', 'must name an index');
    return { kind: 'name', name: hint };
  }
  if (typeof hint === 'object' && !Array.isArray(hint) && Object.keys(hint).length === 1) {
    const natural = (hint as Record<string, unknown>).$natural;
    if (natural === 1 || natural === -1) return { kind: 'natural' };
  }
  if (typeof hint !== 'object' || Array.isArray(hint))
    throw queryErrors.badFindOption('hint', 'must be an index name or its keys');
  try {
    return { kind: 'keys', keys: parseIndexKeys(hint) };
  } catch (e) {
    throw queryErrors.badFindOption('hint', (e as Error).message);
  }
}

function parseCount(name: string, value: unknown, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw queryErrors.badFindOption(name, 'must be an integer');
  if (value < 0) throw queryErrors.badFindOption(name, 'must not be negative');
  if (value > max) throw queryErrors.badFindOption(name, `must be at most ${max}`);
  return value;
}
