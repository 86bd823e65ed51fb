// Data-service queries: the {condition, rules} tree on a type's indexed fields → validated tree (compiled to
// parameterized SQL by src/store/data-item-query.ts).
//
// A rule matches only an item whose field holds a value of the declared type (string or number): a number never
// matches a string comparison and a missing field matches no rule, NE included. NOT negates its one rule or
// condition, so NOT(EQ x) also matches items without the field. Strings compare bytewise (COLLATE "C"), numbers
// exactly (numeric), the same on PGlite and PostgreSQL.
import {
  CONDITIONS,
  type DataQuery,
  type IndexedField,
  OPERATORS,
  type Operator,
  type QueryNode,
} from '../store/data-item-query.js';
import { dataErrors } from './data-errors.js';

export {
  CONDITIONS,
  type DataQuery,
  type FieldType,
  type IndexedField,
  OPERATORS,
  type Operator,
  type QueryNode,
} from '../store/data-item-query.js';

type Scalar = string | number;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const MAX_OFFSET = 1_000_000;
const MAX_DEPTH = 10;
const MAX_RULES = 100;
const MAX_IN_VALUES = 1000;
const MAX_STRING = 1024;
const BODY_FIELDS = ['query', 'sort', 'asc', 'offset', 'limit'];

interface ParseState {
  type: string;
  fields: Map<string, IndexedField>;
  rules: number;
}

/** Validates a query body against the type's indexed fields; throws a 400 naming the first problem. */
export function parseDataQuery(body: unknown, type: string, fields: readonly IndexedField[]): DataQuery {
  const b = body ?? {};
  if (typeof b !== 'object' || Array.isArray(b)) throw dataErrors.badBody('expected a JSON object');
  const obj = b as Record<string, unknown>;
  const extra = Object.keys(obj).find((k) => !BODY_FIELDS.includes(k));
  if (extra !== undefined)
    throw dataErrors.badBody(`unknown field "${extra}" (allowed: ${BODY_FIELDS.join(', ')})`);
  const state: ParseState = { type, fields: new Map(fields.map((f) => [f.name, f])), rules: 0 };
  const where = obj.query === undefined || obj.query === null ? undefined : parseNode(obj.query, state, 1);
  return {
    where,
    sort: parseSort(obj.sort, obj.asc, state),
    offset: readInt(obj.offset, 'offset', 0, MAX_OFFSET, 0),
    limit: readInt(obj.limit, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT),
  };
}

function readInt(v: unknown, name: string, min: number, max: number, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw dataErrors.badBody(`${name} must be an integer from ${min} to ${max}`);
  }
  return v;
}

function parseSort(sort: unknown, asc: unknown, state: ParseState): DataQuery['sort'] {
  if (asc !== undefined && asc !== null && typeof asc !== 'boolean')
    throw dataErrors.badBody('asc must be true or false');
  if (sort === undefined || sort === null) return undefined;
  if (typeof sort !== 'string') throw dataErrors.badBody('sort must be the name of an indexed field');
  return { field: lookupField(sort, state), asc: asc !== false };
}

function lookupField(name: string, state: ParseState): IndexedField {
  const field = state.fields.get(name);
  if (!field) throw dataErrors.fieldNotIndexed(state.type, name.slice(0, 100));
  return field;
}

function parseNode(raw: unknown, state: ParseState, depth: number): QueryNode {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw dataErrors.badQuery('a condition or rule must be a JSON object');
  }
  const obj = raw as Record<string, unknown>;
  if ('field' in obj || 'operator' in obj) return parseRule(obj, state);
  return parseCondition(obj, state, depth);
}

function parseCondition(obj: Record<string, unknown>, state: ParseState, depth: number): QueryNode {
  if (depth > MAX_DEPTH) throw dataErrors.badQuery(`conditions nest at most ${MAX_DEPTH} levels deep`);
  onlyKeys(obj, ['condition', 'rules'], 'a condition');
  const condition = obj.condition;
  if (typeof condition !== 'string' || !(CONDITIONS as readonly string[]).includes(condition)) {
    throw dataErrors.badQuery(`condition must be one of ${CONDITIONS.join(', ')}`);
  }
  const rules = obj.rules;
  if (!Array.isArray(rules) || rules.length === 0)
    throw dataErrors.badQuery('rules must be a non-empty array');
  const children = rules.map((r) => parseNode(r, state, depth + 1));
  if (condition === 'NOT') {
    if (children.length !== 1) throw dataErrors.badQuery('NOT takes exactly one rule or condition');
    return { kind: 'not', child: children[0] as QueryNode };
  }
  return { kind: condition === 'AND' ? 'and' : 'or', children };
}

function parseRule(obj: Record<string, unknown>, state: ParseState): QueryNode {
  onlyKeys(obj, ['field', 'operator', 'value'], 'a rule');
  state.rules += 1;
  if (state.rules > MAX_RULES) throw dataErrors.badQuery(`a query has at most ${MAX_RULES} rules`);
  if (typeof obj.field !== 'string') throw dataErrors.badQuery('a rule needs a field name');
  const field = lookupField(obj.field, state);
  const op = obj.operator;
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) {
    throw dataErrors.badQuery(`operator must be one of ${OPERATORS.join(', ')}`);
  }
  return { kind: 'rule', field, op: op as Operator, value: readValue(field, op as Operator, obj.value) };
}

function onlyKeys(obj: Record<string, unknown>, allowed: string[], what: string): void {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    throw dataErrors.badQuery(`${what} has only ${allowed.join(', ')} (found "${extra}")`);
}

function readValue(field: IndexedField, op: Operator, value: unknown): Scalar | Scalar[] {
  if (op === 'STARTSWITH' && field.type !== 'string') {
    throw dataErrors.badQuery(`STARTSWITH applies to string fields; ${field.name} is a number`);
  }
  if (op !== 'IN') return readScalar(field, op, value);
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) {
    throw dataErrors.badQuery(`IN takes an array of 1 to ${MAX_IN_VALUES} values`);
  }
  return value.map((v) => readScalar(field, op, v));
}

function readScalar(field: IndexedField, op: Operator, value: unknown): Scalar {
  if (field.type === 'number') {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw dataErrors.badQuery(`${op} on number field ${field.name} takes a finite number`);
    }
    return value;
  }
  if (typeof value !== 'string' || value.length > MAX_STRING || value.includes('\u0000')) {
    throw dataErrors.badQuery(
      `${op} on string field ${field.name} takes a string of at most ${MAX_STRING} characters`,
    );
  }
  return value;
}
