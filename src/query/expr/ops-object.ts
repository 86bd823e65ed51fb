// Objects: $mergeObjects $objectToArray $arrayToObject $getField $setField $unsetField.
import { type Doc, isDoc, setField, type Value } from '../values.js';
import { isNullish, named, positional, typeName } from './args.js';
import {
  bad,
  type Ctx,
  type Expr,
  evalExpr,
  type OpParser,
  type Out,
  parseExpr,
  register,
  spend,
} from './core.js';

function docOrNull(op: string, v: Out, what: string): Doc | null {
  if (isNullish(v)) return null;
  if (!isDoc(v)) throw bad(op, `${what} must be an object, not ${typeName(v)}`);
  return v;
}

/** A field name for $arrayToObject/$setField: a string without NUL. */
function fieldName(op: string, k: Out): string {
  if (typeof k !== 'string') throw bad(op, `a field name must be a string, not ${typeName(k)}`);
  if (k.includes('\u0000')) throw bad(op, 'a field name must not contain NUL');
  return k;
}

function arrayToObject(op: string, ctx: Ctx, items: Value[]): Doc {
  spend(ctx, items.length);
  const out: Doc = {};
  // The first element decides the form; every other element must use the same one.
  const pairsForm = Array.isArray(items[0]);
  const pairs = items.map((item): [string, Value] => {
    if (Array.isArray(item) !== pairsForm && (Array.isArray(item) || isDoc(item)))
      throw bad(op, 'elements must all be [name, value] pairs or all {k, v} documents');
    if (Array.isArray(item)) {
      if (item.length !== 2) throw bad(op, 'an array element must be a [name, value] pair');
      return [fieldName(op, item[0]), item[1]!];
    }
    if (isDoc(item)) {
      const keys = Object.keys(item);
      if (keys.length !== 2 || !Object.hasOwn(item, 'k') || !Object.hasOwn(item, 'v'))
        throw bad(op, "a document element must have exactly the fields 'k' and 'v'");
      return [fieldName(op, item.k), item.v!];
    }
    throw bad(op, `elements must be [name, value] pairs or {k, v} documents, not ${typeName(item)}`);
  });
  // A repeated name keeps its first position and takes its last value.
  for (const [k, v] of pairs) setField(out, k, v);
  return out;
}

/** $getField/$setField: the field name must be a constant string (MongoDB checks it when parsing). */
function constantField(op: string, v: Value | undefined): string {
  const f = isDoc(v ?? null) && Object.keys(v as Doc)[0] === '$literal' ? (v as Doc).$literal : v;
  if (typeof f !== 'string') throw bad(op, "'field' must be a constant string");
  return f;
}

function fieldOp(mode: 'get' | 'set' | 'unset'): OpParser {
  return (arg, scope, op) => {
    const spec =
      mode === 'get' && !isDoc(arg)
        ? { field: arg, input: '$$CURRENT' }
        : named(
            arg,
            op,
            ['field', ...(mode === 'get' ? [] : ['input'])],
            mode === 'get' ? ['input'] : mode === 'set' ? ['value'] : [],
          );
    if (mode === 'set' && spec.value === undefined) throw bad(op, "missing required argument 'value'");
    const field = constantField(op, spec.field);
    const input = parseExpr(spec.input === undefined ? '$$CURRENT' : spec.input, scope);
    const value = mode === 'set' ? parseExpr(spec.value!, scope) : undefined;
    return (ctx) => {
      const v = evalExpr(input, ctx);
      if (mode === 'get') {
        if (isNullish(v)) return null;
        if (!isDoc(v)) throw bad(op, `'input' must be an object, not ${typeName(v)}`);
        return Object.hasOwn(v, field) ? v[field] : undefined;
      }
      const doc = docOrNull(op, v, "'input'");
      if (doc === null) return null;
      const nv = value === undefined ? undefined : evalExpr(value, ctx);
      const out: Doc = {};
      for (const k of Object.keys(doc))
        if (k !== field || nv !== undefined) setField(out, k, k === field ? nv! : doc[k]!);
      if (nv !== undefined && !Object.hasOwn(doc, field)) setField(out, field, nv);
      return out;
    };
  };
}

register({
  $mergeObjects: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => {
      const out: Doc = {};
      for (const e of items) {
        const doc = docOrNull(op, evalExpr(e, ctx), 'each argument');
        if (doc === null) continue;
        const keys = Object.keys(doc);
        spend(ctx, keys.length);
        for (const k of keys) setField(out, k, doc[k]!);
      }
      return out;
    };
  },
  $objectToArray: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const doc = docOrNull(op, evalExpr(a, ctx), 'the argument');
      if (doc === null) return null;
      const keys = Object.keys(doc);
      spend(ctx, keys.length);
      return keys.map((k) => ({ k, v: doc[k]! }));
    };
  },
  $arrayToObject: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      if (isNullish(v)) return null;
      if (!Array.isArray(v)) throw bad(op, `the argument must be an array, not ${typeName(v)}`);
      return arrayToObject(op, ctx, v);
    };
  },
  $getField: fieldOp('get'),
  $setField: fieldOp('set'),
  $unsetField: fieldOp('unset'),
});
