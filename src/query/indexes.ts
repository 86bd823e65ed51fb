// Index keys ({"field": 1 | -1, ...}) and the PostgreSQL expression-index columns that serve them.
//
// Columns are pb_pk(doc, path), the very expression filter-sql.ts compares for a field, after the table's
// (game_id, stage, collection) prefix. The planner uses such an index for, per indexed field in key order:
//   {f: v} and {f: {$eq: v}}, {f: {$in: [...]}}: equality (an Index or Bitmap Index Scan on the key);
//   {f: {$gt|$gte|$lt|$lte: v}}: a range inside v's type bracket;
//   any of these combined with $and, and $or of indexable branches (BitmapOr).
// Each such predicate is `fast OR (pb_pk = 01 AND walk)`; both arms are index conditions, so documents whose
// path meets an array are found through the index too. Not served: $ne, $nin, $not, $exists: false,
// $type, $regex, $mod, $size, $elemMatch (they filter rows found otherwise), and sort order: a sort key is the
// smallest or largest element of an array, a different expression, so sorting is a top-N sort of the rows
// the index found. A unique index uses pb_uk (missing counts as null; arrays are refused with SQLSTATE 22023).
import { queryErrors } from './errors.js';
import { parseFieldPath, pathSql } from './field-path.js';

export interface IndexField {
  path: string;
  parts: string[];
  dir: 1 | -1;
}

const MAX_INDEX_FIELDS = 16;

export function parseIndexKeys(keys: unknown): IndexField[] {
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) {
    throw queryErrors.badIndexKeys('expected an object of field paths to 1 or -1');
  }
  const entries = Object.entries(keys as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_INDEX_FIELDS) {
    throw queryErrors.badIndexKeys(`expected 1 to ${MAX_INDEX_FIELDS} fields`);
  }
  return entries.map(([path, dir]) => {
    if (dir !== 1 && dir !== -1) throw queryErrors.badIndexKeys(`direction of "${path}" must be 1 or -1`);
    return { path, parts: parseFieldPath(path), dir };
  });
}

/** The expressions filters compare, one per field, in key order (append DESC for dir -1 yourself). */
function indexExpressions(keys: IndexField[], docSql: string): string[] {
  return keys.map((k) => `pb_pk(${docSql}, ${pathSql(k.parts)})`);
}

/** The expressions of a unique index: like MongoDB, a missing field counts as null. */
function uniqueIndexExpressions(keys: IndexField[], docSql: string): string[] {
  return keys.map((k) => `pb_uk(${docSql}, ${pathSql(k.parts)})`);
}

/** The column list after (game_id, stage, collection): expressions with DESC where the key says -1. */
export function indexColumnsSql(keys: IndexField[], docSql: string, unique = false): string {
  const exprs = unique ? uniqueIndexExpressions(keys, docSql) : indexExpressions(keys, docSql);
  return exprs.map((e, i) => (keys[i]!.dir === -1 ? `${e} DESC` : e)).join(', ');
}
