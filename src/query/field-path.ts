// Field paths of filters, sorts and indexes: validation, and the SQL literal of a path.
import { queryErrors } from './errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/;

/**
 * Most parts of one field path. A stored document nests at most 100 levels, so no longer path can reach a
 * value; refusing it keeps hostile paths (100,000 parts) out of the recursive code that walks documents.
 */
export const MAX_PATH_PARTS = 200;

/** Splits and checks a dotted path: no empty part, no part starting with $, no NUL. */
export function parseFieldPath(path: string): string[] {
  if (path === '') throw queryErrors.badFieldPath(path, 'empty');
  if (path.includes('\u0000'))
    throw queryErrors.badFieldPath(path.replaceAll('\u0000', '\\0'), 'contains NUL');
  const parts = splitPath(path);
  for (const part of parts) {
    if (part === '') throw queryErrors.badFieldPath(path, 'empty part');
    if (part.startsWith('$')) throw queryErrors.badFieldPath(path, `part "${part}" starts with $`);
    if (LONE_SURROGATE.test(part)) throw queryErrors.badFieldPath(path, 'invalid Unicode');
  }
  return parts;
}

/** The parts of a dotted path, refused past MAX_PATH_PARTS parts with QUERY_TOO_LARGE. */
export function splitPath(path: string): string[] {
  const parts = path.split('.', MAX_PATH_PARTS + 1);
  if (parts.length > MAX_PATH_PARTS) throw queryErrors.tooLarge('parts of a field path', MAX_PATH_PARTS);
  return parts;
}

/**
 * A SQL text[] literal of the path. Paths are written into the SQL text, not bound, because an expression
 * index only matches a query whose expression has the same constants; each part is an escaped E'' string.
 */
export function pathSql(parts: string[]): string {
  const items = parts.map((p) => `E'${p.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
  return `ARRAY[${items.join(', ')}]::text[]`;
}
