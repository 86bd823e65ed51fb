// Field paths of filters, sorts and indexes: validation, and the SQL literal of a path.
import { queryErrors } from './errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/;

/** Splits and checks a dotted path: no empty part, no part starting with $, no NUL. */
export function parseFieldPath(path: string): string[] {
  if (path === '') throw queryErrors.badFieldPath(path, 'empty');
  if (path.includes('\u0000'))
    throw queryErrors.badFieldPath(path.replaceAll('\u0000', '\\0'), 'contains NUL');
  const parts = path.split('.');
  for (const part of parts) {
    if (part === '') throw queryErrors.badFieldPath(path, 'empty part');
    if (part.startsWith('$')) throw queryErrors.badFieldPath(path, `part "${part}" starts with $`);
    if (LONE_SURROGATE.test(part)) throw queryErrors.badFieldPath(path, 'invalid Unicode');
  }
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
