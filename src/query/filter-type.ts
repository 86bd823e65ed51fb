// The $type query operator's operand: BSON type names and numbers, mapped to the types the value model has.
import { queryErrors } from './errors.js';
import type { ElemPred } from './filter.js';

const TYPE_NAMES: Record<string, string[]> = {
  double: ['double'],
  string: ['string'],
  object: ['object'],
  array: ['array'],
  binData: [],
  undefined: [],
  objectId: ['objectId'],
  bool: ['bool'],
  date: ['date'],
  null: ['null'],
  regex: [],
  dbPointer: [],
  javascript: [],
  symbol: [],
  javascriptWithScope: [],
  int: ['int'],
  timestamp: [],
  long: ['long'],
  decimal: ['decimal'],
  minKey: [],
  maxKey: [],
  number: ['int', 'long', 'double', 'decimal'],
};
const TYPE_CODES: Record<number, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  5: 'binData',
  6: 'undefined',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  12: 'dbPointer',
  13: 'javascript',
  14: 'symbol',
  15: 'javascriptWithScope',
  16: 'int',
  17: 'timestamp',
  18: 'long',
  19: 'decimal',
  [-1]: 'minKey',
  127: 'maxKey',
};

export function parseType(operand: unknown, path: string): ElemPred {
  const items = Array.isArray(operand) ? operand : [operand];
  if (items.length === 0) throw queryErrors.badOperand('$type', path, 'expected at least one type');
  const types = new Set<string>();
  for (const item of items) {
    const name = typeof item === 'number' && Number.isInteger(item) ? TYPE_CODES[item] : item;
    const mapped = typeof name === 'string' && Object.hasOwn(TYPE_NAMES, name) ? TYPE_NAMES[name] : undefined;
    if (mapped === undefined)
      throw queryErrors.badOperand('$type', path, `unknown type ${JSON.stringify(item)}`);
    for (const t of mapped) types.add(t);
  }
  return { op: 'type', types: [...types] };
}
