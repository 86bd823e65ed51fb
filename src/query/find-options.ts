// The options of find: filter, projection fields, sort, skip and limit, validated together.
import { queryErrors } from './errors.js';
import { type FilterNode, parseFilter } from './filter.js';
import { parseSort, type SortSpec } from './sort.js';

/** The most documents one find returns; a limit that is absent or 0 means this many. */
const MAX_FIND_LIMIT = 10_000;

export interface FindOptions {
  filter: FilterNode;
  /** The raw projection, validated by projection.ts. */
  fields: unknown;
  sort: SortSpec;
  skip: number;
  limit: number;
}

export interface FindOptionsInput {
  query?: unknown;
  fields?: unknown;
  sort?: unknown;
  skip?: unknown;
  limit?: unknown;
}

export function parseFindOptions(input: FindOptionsInput): FindOptions {
  return {
    filter: parseFilter(input.query),
    fields: input.fields,
    sort: parseSort(input.sort),
    skip: parseCount('skip', input.skip, Number.MAX_SAFE_INTEGER) ?? 0,
    limit: parseCount('limit', input.limit, MAX_FIND_LIMIT) || MAX_FIND_LIMIT,
  };
}

function parseCount(name: string, value: unknown, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw queryErrors.badFindOption(name, 'must be an integer');
  if (value < 0) throw queryErrors.badFindOption(name, 'must not be negative');
  if (value > max) throw queryErrors.badFindOption(name, `must be at most ${max}`);
  return value;
}
