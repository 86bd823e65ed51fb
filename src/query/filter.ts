// MongoDB filters: parsed and validated into a FilterNode tree; compiled to SQL or evaluated in JS elsewhere.
import { type Expr, parseExpression } from './aggregate-expr.js';
import { queryErrors } from './errors.js';
import { MAX_EXPR_WORK } from './expr/core.js';
import { parseFieldPath } from './field-path.js';
import { BITS_OPERATORS, type BitsPred, parseBits } from './filter-bits.js';
import { parseType } from './filter-type.js';
import { type TranslatedRegex, translateRegex } from './regex.js';
import { EJSON_TYPES, fromWire, type Value } from './values.js';

export { matchesFilter } from './filter-match.js';
export { compileFilter } from './filter-sql.js';

export type Cmp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

/** A predicate on one element that a path reaches (MongoDB's matchesSingleElement). */
export type ElemPred =
  | { op: 'cmp'; cmp: Cmp; value: Value }
  | { op: 'in'; values: Value[] }
  | { op: 'exists' }
  | { op: 'type'; types: string[] }
  | { op: 'regex'; regex: TranslatedRegex }
  | { op: 'mod'; divisor: bigint; remainder: bigint }
  | { op: 'size'; size: number }
  | { op: 'elemMatchValue'; preds: ElemPred[] }
  | { op: 'elemMatchDoc'; filter: FilterNode }
  | BitsPred
  /** Only inside elemMatchValue: none-of-all of preds on the element itself. */
  | { op: 'not'; preds: ElemPred[] };

export type FilterNode =
  | { kind: 'and' | 'or' | 'nor'; children: FilterNode[] }
  | { kind: 'not'; child: FilterNode }
  /** True when some element the path reaches satisfies pred. */
  | { kind: 'path'; path: string; parts: string[]; pred: ElemPred }
  | { kind: 'const'; value: boolean }
  /**
   * `$expr`: an aggregation expression's truthiness, with the operation's $$NOW (JavaScript only). Its work
   * budget is shared by every document the operation tests (as the $regex step budget is).
   */
  | { kind: 'expr'; expr: Expr; now: Date; budget: { left: number } };

/** $size and $elemMatch look at a leaf array as a whole; everything else also at its elements. */
export function isWholeArrayPred(pred: ElemPred): boolean {
  return pred.op === 'size' || pred.op === 'elemMatchValue' || pred.op === 'elemMatchDoc';
}

/** $$NOW of the $expr being parsed, and how deep inside $elemMatch the parser is ($expr is top-level only). */
const parsing = { now: undefined as Date | undefined, elemMatch: 0 };

/**
 * Parses a filter document; throws a 400 PlaybaseError naming the operator or path that is not accepted.
 * `now` is $$NOW for its `$expr` (by default the time of parsing).
 */
export function parseFilter(filter: unknown, now?: Date): FilterNode {
  if (now === undefined || parsing.now !== undefined) return parseFilterDoc(filter);
  parsing.now = now;
  try {
    return parseFilterDoc(filter);
  } finally {
    parsing.now = undefined;
  }
}

function parseFilterDoc(filter: unknown): FilterNode {
  if (filter === undefined || filter === null) return { kind: 'const', value: true };
  if (!isPlainObject(filter)) throw queryErrors.badOperand('query', '', 'a filter must be an object');
  const children: FilterNode[] = [];
  for (const [key, raw] of Object.entries(filter)) {
    if (key.startsWith('$')) children.push(parseTopOperator(key, raw));
    else children.push(parseField(key, raw));
  }
  return children.length === 1 ? children[0]! : { kind: 'and', children };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseTopOperator(op: string, raw: unknown): FilterNode {
  // A comment for MongoDB's logs and profiler: any value, matching every document.
  if (op === '$comment') return { kind: 'const', value: true };
  if (op === '$expr') {
    if (parsing.elemMatch > 0)
      throw queryErrors.badOperand('$expr', '', 'can only be applied to the top-level document');
    const expr = parseExpression(fromWire(raw, { allowDollarKeys: true }, '$expr'), '$expr');
    return { kind: 'expr', expr, now: parsing.now ?? new Date(), budget: { left: MAX_EXPR_WORK } };
  }
  if (op !== '$and' && op !== '$or' && op !== '$nor') throw queryErrors.unknownOperator(op);
  if (!Array.isArray(raw) || raw.length === 0)
    throw queryErrors.badOperand(op, '', 'expected a non-empty array');
  const children = raw.map((item) => {
    if (!isPlainObject(item)) throw queryErrors.badOperand(op, '', 'every element must be an object');
    return parseFilterDoc(item);
  });
  return { kind: op.slice(1) as 'and' | 'or' | 'nor', children };
}

function parseField(path: string, raw: unknown): FilterNode {
  const parts = parseFieldPath(path);
  if (isOperatorObject(raw, path)) {
    checkOptions(raw as Record<string, unknown>, path);
    const nodes = Object.entries(raw as Record<string, unknown>)
      .filter(([op]) => op !== '$options')
      .map(([op, operand]) => parseOperator(path, parts, op, operand, raw as Record<string, unknown>));
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', children: nodes };
  }
  return pathNode(path, parts, { op: 'cmp', cmp: 'eq', value: literal(raw, path, '$eq') });
}

/** {$gt: 1} is an operator object; {$oid: ...} and {a: 1} are values; mixing the two is refused. */
function isOperatorObject(raw: unknown, path: string): boolean {
  if (!isPlainObject(raw)) return false;
  const keys = Object.keys(raw);
  if (keys.length === 0 || !keys[0]!.startsWith('$') || EJSON_TYPES.has(keys[0]!)) return false;
  const plain = keys.find((k) => !k.startsWith('$'));
  if (plain !== undefined)
    throw queryErrors.badOperand(keys[0]!, path, `cannot mix operators with field "${plain}"`);
  return true;
}

function checkOptions(ops: Record<string, unknown>, path: string): void {
  if ('$options' in ops && !('$regex' in ops)) throw queryErrors.badOperand('$options', path, 'needs $regex');
}

function literal(raw: unknown, path: string, op: string): Value {
  if (raw === undefined) throw queryErrors.badOperand(op, path, 'missing value');
  return fromWire(raw, {}, path);
}

function pathNode(path: string, parts: string[], pred: ElemPred): FilterNode {
  return { kind: 'path', path, parts, pred };
}

function not(child: FilterNode): FilterNode {
  return { kind: 'not', child };
}

function parseOperator(
  path: string,
  parts: string[],
  op: string,
  operand: unknown,
  all: Record<string, unknown>,
): FilterNode {
  if (op === '$ne')
    return not(pathNode(path, parts, { op: 'cmp', cmp: 'eq', value: literal(operand, path, op) }));
  if (op === '$in') return parseInNode(path, parts, op, operand);
  if (op === '$nin') return not(parseInNode(path, parts, op, operand));
  if (op === '$not') return parseNot(path, operand);
  if (op === '$exists') {
    const node = pathNode(path, parts, { op: 'exists' });
    return parseTruthy(op, operand, path) ? node : not(node);
  }
  if (op === '$all') return parseAll(path, parts, operand);
  return pathNode(path, parts, parseElemOperator(path, op, operand, all));
}

function parseNot(path: string, operand: unknown): FilterNode {
  if (!isPlainObject(operand) || Object.keys(operand).length === 0) {
    throw queryErrors.badOperand('$not', path, 'expected a non-empty object of operators');
  }
  if (!isOperatorObject(operand, path))
    throw queryErrors.badOperand('$not', path, 'expected operators, not a value');
  const inner = parseField(path, operand);
  return not(inner);
}

function parseAll(path: string, parts: string[], operand: unknown): FilterNode {
  if (!Array.isArray(operand)) throw queryErrors.badOperand('$all', path, 'expected an array');
  if (operand.length === 0) return { kind: 'const', value: false };
  const children = operand.map((item) => {
    if (isPlainObject(item) && Object.keys(item)[0] === '$elemMatch') {
      if (Object.keys(item).length !== 1)
        throw queryErrors.badOperand('$all', path, 'bad $elemMatch element');
      return pathNode(path, parts, parseElemMatch(path, item.$elemMatch));
    }
    return pathNode(path, parts, { op: 'cmp', cmp: 'eq', value: literal(item, path, '$all') });
  });
  return children.length === 1 ? children[0]! : { kind: 'and', children };
}

/** Operators that are one predicate on each element (also the allowed contents of $elemMatch on values). */
function parseElemOperator(
  path: string,
  op: string,
  operand: unknown,
  all: Record<string, unknown>,
): ElemPred {
  switch (op) {
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { op: 'cmp', cmp: op.slice(1) as Cmp, value: literal(operand, path, op) };
    case '$in':
      return parseIn(op, operand, path);
    case '$type':
      return parseType(operand, path);
    case '$regex':
      return parseRegex(operand, all.$options, path);
    case '$mod':
      return parseMod(operand, path);
    case '$size':
      return { op: 'size', size: parseSize(operand, path) };
    case '$elemMatch':
      return parseElemMatch(path, operand);
    default:
      if (Object.hasOwn(BITS_OPERATORS, op)) return parseBits(op, operand, path);
      throw queryErrors.unknownOperator(op);
  }
}

function parseIn(op: string, operand: unknown, path: string): ElemPred {
  if (!Array.isArray(operand)) throw queryErrors.badOperand(op, path, 'expected an array');
  if (operand.some(isRegexLiteral)) {
    throw queryErrors.badOperand(op, path, 'regular expressions in $in are not supported inside $elemMatch');
  }
  return { op: 'in', values: operand.map((item) => literal(item, path, op)) };
}

/** A regular expression as extended JSON writes one: {$regularExpression: {pattern, options}} or {$regex, $options}. */
function isRegexLiteral(item: unknown): item is Record<string, unknown> {
  return isPlainObject(item) && (Object.hasOwn(item, '$regularExpression') || Object.hasOwn(item, '$regex'));
}

function regexLiteral(item: Record<string, unknown>, op: string, path: string): ElemPred {
  const keys = Object.keys(item);
  if (Object.hasOwn(item, '$regularExpression')) {
    const r = item.$regularExpression;
    if (
      keys.length !== 1 ||
      !isPlainObject(r) ||
      typeof r.pattern !== 'string' ||
      typeof r.options !== 'string'
    )
      throw queryErrors.badOperand(op, path, 'expected {$regularExpression: {pattern, options}}');
    return parseRegex(r.pattern, r.options, path);
  }
  if (keys.some((k) => k !== '$regex' && k !== '$options'))
    throw queryErrors.badOperand(op, path, 'expected {$regex, $options}');
  return parseRegex(item.$regex, item.$options, path);
}

/**
 * $in (and $nin, its negation) as MongoDB matches it: an element equal to one of the values or matching one of
 * the regular expressions. With regular expressions it is the OR of one predicate per kind, which for a path
 * means the same: some element matches some of them.
 */
function parseInNode(path: string, parts: string[], op: string, operand: unknown): FilterNode {
  if (!Array.isArray(operand)) throw queryErrors.badOperand(op, path, 'expected an array');
  const regexes = operand.filter(isRegexLiteral);
  if (regexes.length === 0) return pathNode(path, parts, parseIn(op, operand, path));
  const values = operand.filter((item) => !isRegexLiteral(item)).map((item) => literal(item, path, op));
  const children = regexes.map((r) => pathNode(path, parts, regexLiteral(r, op, path)));
  if (values.length > 0) children.unshift(pathNode(path, parts, { op: 'in', values }));
  return children.length === 1 ? children[0]! : { kind: 'or', children };
}

function parseTruthy(op: string, operand: unknown, path: string): boolean {
  if (typeof operand === 'boolean') return operand;
  if (typeof operand === 'number') return operand !== 0;
  throw queryErrors.badOperand(op, path, 'expected true or false');
}

function parseRegex(operand: unknown, options: unknown, path: string): ElemPred {
  if (typeof operand !== 'string') throw queryErrors.badOperand('$regex', path, 'expected a string pattern');
  if (options !== undefined && typeof options !== 'string') {
    throw queryErrors.badOperand('$options', path, 'expected a string');
  }
  return { op: 'regex', regex: translateRegex(operand, options ?? '') };
}

function toInteger(op: string, v: unknown, path: string): bigint {
  const value = fromWire(v ?? null, {}, path);
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value);
  throw queryErrors.badOperand(op, path, 'expected an integer');
}

function parseMod(operand: unknown, path: string): ElemPred {
  if (!Array.isArray(operand) || operand.length !== 2) {
    throw queryErrors.badOperand('$mod', path, 'expected [divisor, remainder]');
  }
  const divisor = toInteger('$mod', operand[0], path);
  const remainder = toInteger('$mod', operand[1], path);
  if (divisor === 0n) throw queryErrors.badOperand('$mod', path, 'divisor cannot be 0');
  return { op: 'mod', divisor, remainder };
}

function parseSize(operand: unknown, path: string): number {
  const n = toInteger('$size', operand, path);
  if (n < 0n || n > 2n ** 31n) throw queryErrors.badOperand('$size', path, 'expected a non-negative integer');
  return Number(n);
}

function parseElemMatch(path: string, operand: unknown): ElemPred {
  if (!isPlainObject(operand)) throw queryErrors.badOperand('$elemMatch', path, 'expected an object');
  const keys = Object.keys(operand);
  const first = keys[0];
  const valueForm = first?.startsWith('$') && !['$and', '$or', '$nor'].includes(first);
  if (!valueForm) {
    parsing.elemMatch++;
    try {
      return { op: 'elemMatchDoc', filter: parseFilterDoc(operand) };
    } finally {
      parsing.elemMatch--;
    }
  }
  return { op: 'elemMatchValue', preds: parseValuePreds(path, operand) };
}

/** The operators of $elemMatch on values, each applied to the element itself. */
function parseValuePreds(path: string, ops: Record<string, unknown>): ElemPred[] {
  checkOptions(ops, path);
  const preds: ElemPred[] = [];
  for (const [op, operand] of Object.entries(ops)) {
    if (op === '$options') continue;
    if (!op.startsWith('$'))
      throw queryErrors.badOperand('$elemMatch', path, `cannot mix operators with "${op}"`);
    if (op === '$ne')
      preds.push({ op: 'not', preds: [{ op: 'cmp', cmp: 'eq', value: literal(operand, path, op) }] });
    else if (op === '$nin') preds.push({ op: 'not', preds: [parseIn(op, operand, path)] });
    else if (op === '$exists')
      preds.push(
        parseTruthy(op, operand, path) ? { op: 'exists' } : { op: 'not', preds: [{ op: 'exists' }] },
      );
    else if (op === '$all') for (const p of parseValueAll(path, operand)) preds.push(p);
    else if (op === '$not') {
      if (!isPlainObject(operand) || !isOperatorObject(operand, path)) {
        throw queryErrors.badOperand('$not', path, 'expected a non-empty object of operators');
      }
      preds.push({ op: 'not', preds: parseValuePreds(path, operand) });
    } else preds.push(parseElemOperator(path, op, operand, ops));
  }
  return preds;
}

function parseValueAll(path: string, operand: unknown): ElemPred[] {
  if (!Array.isArray(operand)) throw queryErrors.badOperand('$all', path, 'expected an array');
  if (operand.length === 0) return [{ op: 'in', values: [] }];
  return operand.map((item) =>
    isPlainObject(item) && Object.keys(item)[0] === '$elemMatch'
      ? parseElemMatch(path, item.$elemMatch)
      : { op: 'cmp', cmp: 'eq', value: literal(item, path, '$all') },
  );
}
