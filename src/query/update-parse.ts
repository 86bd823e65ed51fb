// Parses an update document into a validated, ordered list of actions (or a replacement document).
import { splitPath } from './field-path.js';
import { type FilterNode, parseFilter } from './filter.js';
import { sharingRegexBudget } from './regex-vm.js';
import { isNum, type Num } from './update-arith.js';
import { updateErrors } from './update-errors.js';
import { checkStorable, comparePaths, parseUpdatePath } from './update-paths.js';
import {
  checkArrayFilterUse,
  checkPositionalParts,
  isPositionalPart,
  parseArrayFilters,
} from './update-positional.js';
import { type Doc, fromWire, isDoc, type Value } from './values.js';

export type PushSort =
  | { kind: 'value'; dir: 1 | -1 }
  | { kind: 'fields'; keys: Array<{ path: string; dir: 1 | -1 }> };
export interface PushArg {
  each: Value[];
  position: number | undefined;
  slice: number | undefined;
  sort: PushSort | undefined;
}
/** How $pull recognises elements to remove, as MongoDB's equality, object and wrapped matchers do. */
export type PullArg =
  | { kind: 'equal'; value: Value }
  | { kind: 'document'; node: FilterNode }
  | { kind: 'condition'; node: FilterNode };

interface Base {
  /** Where the action writes; for $rename the destination. */
  path: string[];
  field: string;
}
export type UpdateAction = Base &
  (
    | { op: '$set' | '$setOnInsert' | '$min' | '$max'; value: Value }
    | { op: '$unset' | '$currentDate' }
    | { op: '$inc' | '$mul'; value: Num }
    | { op: '$bit'; ops: BitOp[] }
    | { op: '$rename'; from: string[]; fromField: string }
    | { op: '$push'; arg: PushArg }
    | { op: '$addToSet'; values: Value[] }
    | { op: '$pop'; first: boolean }
    | { op: '$pull'; arg: PullArg }
  );
export type UpdateOperator = UpdateAction['op'];
/** One step of a $bit: the field's integer and'ed, or'ed or xor'ed with an int or a long, in the order given. */
export interface BitOp {
  kind: 'and' | 'or' | 'xor';
  value: Num;
}

export type UpdateSpec =
  | { kind: 'replace'; doc: Doc }
  | {
      kind: 'operators';
      actions: UpdateAction[];
      /** The filters of the $[<identifier>] parts, by identifier. */
      arrayFilters: Map<string, FilterNode>;
      /** Some path has a positional part: resolve paths per document (update-positional.ts). */
      dynamic: boolean;
      /** Some path has `$`: the caller passes the position the query matched (match-position.ts). */
      positional: boolean;
    };

/** The field name under which $pull conditions over scalars are matched (any name works; it never leaks). */
export const PULL_FIELD = 'v';

type ActionBody = DistributiveOmit<UpdateAction, 'path' | 'field'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Parser = (arg: Value, field: string) => ActionBody;
type ValueOperator = Exclude<UpdateOperator, '$pull'>;

const PARSERS: Record<ValueOperator, Parser> = {
  $set: (value) => ({ op: '$set', value: storable(value) }),
  $setOnInsert: (value) => ({ op: '$setOnInsert', value: storable(value) }),
  $min: (value) => ({ op: '$min', value: storable(value) }),
  $max: (value) => ({ op: '$max', value: storable(value) }),
  $unset: () => ({ op: '$unset' }),
  $inc: (value, field) => ({ op: '$inc', value: numeric('$inc', field, value) }),
  $mul: (value, field) => ({ op: '$mul', value: numeric('$mul', field, value) }),
  $bit: parseBit,
  $currentDate: parseCurrentDate,
  $rename: parseRename,
  $push: (value, field) => ({ op: '$push', arg: parsePush(value, field) }),
  $addToSet: parseAddToSet,
  $pop: parsePop,
};

/**
 * Validates an update as sent (extended JSON, as JSON.parse returns it): a document of update operators, or
 * a replacement document without $-keys. Paths that are equal or contain one another are refused as MongoDB does.
 */
export function parseUpdate(update: unknown, arrayFilters?: unknown): UpdateSpec {
  // One $regex step budget for all the $pull conditions and array filters of the update.
  return sharingRegexBudget(() => parseUpdateSpec(update, arrayFilters));
}

function parseUpdateSpec(update: unknown, rawFilters: unknown): UpdateSpec {
  const arrayFilters = parseArrayFilters(rawFilters);
  if (Array.isArray(update)) throw updateErrors.unsupported('An update given as an aggregation pipeline');
  if (!isPlainObject(update)) throw updateErrors.badShape('the update must be a document');
  const keys = Object.keys(update);
  const dollar = keys.filter((k) => k.startsWith('$'));
  if (dollar.length === 0) {
    const doc = fromWire(update, { allowDollarKeys: true }) as Doc;
    checkStorable(doc, '');
    checkArrayFilterUse([], arrayFilters);
    return { kind: 'replace', doc };
  }
  if (dollar.length !== keys.length) {
    throw updateErrors.badShape(
      'an update mixes update operators with plain fields (a replacement document)',
    );
  }
  const actions: UpdateAction[] = [];
  for (const op of keys) for (const action of parseOperator(op, update[op])) actions.push(action);
  checkConflicts(actions);
  checkArrayFilterUse(actions, arrayFilters);
  const dynamic = actions.some((a) => a.path.some(isPositionalPart));
  const positional = actions.some((a) => a.path.includes('$'));
  actions.sort((a, b) => comparePaths(a.path, b.path));
  return { kind: 'operators', actions, arrayFilters, dynamic, positional };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function parseOperator(op: string, fields: unknown): UpdateAction[] {
  if (op !== '$pull' && !Object.hasOwn(PARSERS, op)) throw updateErrors.unknownOperator(op);
  if (!isPlainObject(fields)) throw updateErrors.badArgument(op, '', 'expected a document of field paths');
  return Object.keys(fields).map((field) => {
    const raw = fields[field];
    // $pull conditions go to the filter parser as sent; every other argument is a value.
    const body: ActionBody =
      op === '$pull'
        ? { op: '$pull', arg: parsePull(raw, field) }
        : PARSERS[op as ValueOperator](fromWire(raw, { allowDollarKeys: true }, field), field);
    // A $rename is placed (ordered, conflict-checked, written) at its destination.
    const target = body.op === '$rename' ? (raw as string) : field;
    const path = parseUpdatePath(target, body.op !== '$rename');
    checkPositionalParts(target, path);
    return { path, field: target, ...body } as UpdateAction;
  });
}

/** Every written path (and each $rename source) must be neither equal to nor a prefix of another. */
function checkConflicts(actions: UpdateAction[]): void {
  const paths: string[][] = [];
  for (const action of actions) {
    paths.push(action.path);
    if (action.op === '$rename') paths.push(action.from);
  }
  const sorted = paths.slice().sort(comparePaths);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (prev.length <= cur.length && prev.every((part, j) => part === cur[j])) {
      throw updateErrors.pathConflict(cur.join('.'), prev.join('.'));
    }
  }
}

function storable(value: Value): Value {
  checkStorable(value, '');
  return value;
}

function numeric(op: string, field: string, value: Value): Num {
  if (!isNum(value)) throw updateErrors.badArgument(op, field, 'the argument must be a number');
  return value;
}

function parseCurrentDate(value: Value, field: string): ActionBody {
  if (value === true) return { op: '$currentDate' };
  if (isDoc(value) && Object.keys(value).length === 1 && Object.hasOwn(value, '$type')) {
    if (value.$type === 'date') return { op: '$currentDate' };
    if (value.$type === 'timestamp') throw updateErrors.unsupported('$currentDate with {$type: "timestamp"}');
  }
  throw updateErrors.badArgument('$currentDate', field, "expected true or {$type: 'date'}");
}

const INT32 = (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;

/** `{and|or|xor: <int or long>, ...}`: MongoDB refuses doubles and anything else. */
function parseBit(value: Value, field: string): ActionBody {
  const bad = (why: string) => updateErrors.badArgument('$bit', field, why);
  if (!isDoc(value) || Object.keys(value).length === 0)
    throw bad('expected a document of and, or, xor to an integer');
  const ops = Object.keys(value).map((kind) => {
    if (kind !== 'and' && kind !== 'or' && kind !== 'xor')
      throw bad(`the $bit operation must be and, or or xor, not '${kind}'`);
    const v = value[kind];
    if (typeof v === 'bigint' || (typeof v === 'number' && INT32(v))) return { kind, value: v } as BitOp;
    throw bad('the $bit operand must be an Integer (32 or 64 bit)');
  });
  return { op: '$bit', ops };
}

function parseRename(value: Value, field: string): ActionBody {
  if (typeof value !== 'string')
    throw updateErrors.badArgument('$rename', field, 'the target must be a string');
  for (const [role, path] of [
    ['source', field],
    ['destination', value],
  ] as const) {
    if (splitPath(path).some(isPositionalPart))
      throw updateErrors.badArgument(
        '$rename',
        field,
        `the ${role} field for $rename may not be dynamic: ${path}`,
      );
  }
  const from = parseUpdatePath(field);
  parseUpdatePath(value);
  if (value === field) throw updateErrors.badArgument('$rename', field, 'the source and target must differ');
  return { op: '$rename', from, fromField: field };
}

function parsePop(value: Value, field: string): ActionBody {
  if (!isNum(value) || (Number(value) !== 1 && Number(value) !== -1)) {
    throw updateErrors.badArgument('$pop', field, 'expected 1 or -1');
  }
  return { op: '$pop', first: Number(value) === -1 };
}

function parseAddToSet(value: Value, field: string): ActionBody {
  if (isDoc(value) && Object.hasOwn(value, '$each')) {
    const extra = Object.keys(value).find((k) => k !== '$each');
    if (extra !== undefined)
      throw updateErrors.badArgument('$addToSet', field, `unrecognized clause ${extra}`);
    if (!Array.isArray(value.$each))
      throw updateErrors.badArgument('$addToSet', field, '$each must be an array');
    return { op: '$addToSet', values: value.$each.map(storable) };
  }
  return { op: '$addToSet', values: [storable(value)] };
}

const PUSH_CLAUSES = new Set(['$each', '$slice', '$position', '$sort']);

function parsePush(value: Value, field: string): PushArg {
  if (!isDoc(value) || !Object.hasOwn(value, '$each')) {
    return { each: [storable(value)], position: undefined, slice: undefined, sort: undefined };
  }
  const bad = (why: string) => updateErrors.badArgument('$push', field, why);
  for (const key of Object.keys(value)) if (!PUSH_CLAUSES.has(key)) throw bad(`unrecognized clause ${key}`);
  if (!Array.isArray(value.$each)) throw bad('$each must be an array');
  return {
    each: value.$each.map(storable),
    position: integerClause(value.$position, '$position', bad),
    slice: integerClause(value.$slice, '$slice', bad),
    sort: value.$sort === undefined ? undefined : parsePushSort(value.$sort, bad),
  };
}

function integerClause(v: Value | undefined, name: string, bad: (why: string) => Error): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw bad(`${name} must be an integer`);
  return v;
}

function parsePushSort(v: Value, bad: (why: string) => Error): PushSort {
  const dir = (d: Value | undefined): 1 | -1 => {
    if (isNum(d) && (Number(d) === 1 || Number(d) === -1)) return Number(d) as 1 | -1;
    throw bad('$sort directions must be 1 or -1');
  };
  if (!isDoc(v)) return { kind: 'value', dir: dir(v) };
  const fields = Object.keys(v);
  if (fields.length === 0) throw bad('$sort must not be an empty document');
  const keys = fields.map((path) => {
    if (splitPath(path).some((p) => p === '' || p.startsWith('$'))) throw bad(`bad $sort field '${path}'`);
    return { path, dir: dir(v[path]) };
  });
  return { kind: 'fields', keys };
}

/** Extended JSON type tags: an object starting with one of them is a value, not a condition. */
const VALUE_TAGS = new Set([
  '$oid',
  '$date',
  '$numberLong',
  '$numberInt',
  '$numberDouble',
  '$numberDecimal',
  '$binary',
  '$uuid',
  '$timestamp',
  '$minKey',
  '$maxKey',
  '$symbol',
  '$code',
  '$dbPointer',
  '$undefined',
  '$regularExpression',
]);

/**
 * A document without operators is a query each element document must match; a document of operators (a
 * condition such as {$gte: 5} or {$regex: ...}) applies to each element; anything else removes equal elements.
 */
function parsePull(raw: unknown, field: string): PullArg {
  const keys = isPlainObject(raw) ? Object.keys(raw) : [];
  if (!isPlainObject(raw) || VALUE_TAGS.has(keys[0] ?? ''))
    return { kind: 'equal', value: fromWire(raw, {}, field) };
  const ops = keys.filter((k) => k.startsWith('$'));
  if (ops.length === 0) return { kind: 'document', node: parseFilter(raw) };
  if (ops.length !== keys.length) {
    throw updateErrors.badArgument('$pull', field, 'a condition mixes operators and field names');
  }
  return { kind: 'condition', node: parseFilter({ [PULL_FIELD]: raw }) };
}
