// Positional update paths: `$` (the array position the query matched), `$[]` (every element) and
// `$[<identifier>]` (the elements an array filter matches), checked when the update is parsed and resolved to
// concrete paths for each document before its actions apply, with MongoDB's rules and errors.
import { queryErrors } from './errors.js';
import { type FilterNode, matchesFilter, parseFilter } from './filter.js';
import { updateErrors } from './update-errors.js';
import type { UpdateAction } from './update-parse.js';
import { comparePaths, readChild } from './update-paths.js';
import { type Doc, isDoc, type Value } from './values.js';

/** Array elements one update may visit through $[] and $[<identifier>] in one document. */
export const MAX_POSITIONAL_VISITS = 1_000_000;

const IDENTIFIER = /^[a-z][a-zA-Z0-9]*$/;

export function isArrayFilterPart(part: string): boolean {
  return part.startsWith('$[') && part.endsWith(']');
}

export function isPositionalPart(part: string): boolean {
  return part === '$' || isArrayFilterPart(part);
}

/** Checks the positional parts of an update path as MongoDB's update parser does. */
export function checkPositionalParts(path: string, parts: string[]): void {
  let dollars = 0;
  parts.forEach((part, i) => {
    if (!isPositionalPart(part)) return;
    if (i === 0)
      throw updateErrors.positional(part, `it cannot be the first component of the path '${path}'`);
    if (part === '$' && ++dollars > 1)
      throw updateErrors.positional('$', `too many positional (i.e. '$') elements found in path '${path}'`);
  });
}

/** arrayFilters as sent: an array of filters, each on one identifier (its fields' first component). */
export function parseArrayFilters(raw: unknown): Map<string, FilterNode> {
  const out = new Map<string, FilterNode>();
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) throw updateErrors.badArrayFilters('expected an array of filter documents');
  for (const filter of raw) {
    if (!isPlainObject(filter)) throw updateErrors.badArrayFilters('every array filter must be a document');
    const ids = new Set<string>();
    topLevelIdentifiers(filter, ids);
    if (ids.size === 0)
      throw updateErrors.badArrayFilters(
        'cannot use an expression without a top-level field name in arrayFilters',
      );
    if (ids.size > 1) {
      const [a, b] = [...ids];
      throw updateErrors.badArrayFilters(`expected a single top-level field name, found '${a}' and '${b}'`);
    }
    const id = [...ids][0]!;
    if (!IDENTIFIER.test(id))
      throw updateErrors.badArrayFilters(
        `the top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`,
      );
    if (out.has(id))
      throw updateErrors.badArrayFilters(
        `found multiple array filters with the same top-level field name ${id}`,
      );
    out.set(id, parseFilter(filter));
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function topLevelIdentifiers(filter: Record<string, unknown>, ids: Set<string>): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) for (const c of value) if (isPlainObject(c)) topLevelIdentifiers(c, ids);
    } else if (!key.startsWith('$')) ids.add(key.split('.')[0]!);
  }
}

/**
 * Every $[<identifier>] of the actions has a filter, and every filter is used (MongoDB refuses both). Also no
 * path may go on both through array filters and through fields (or `$`) at the same prefix: MongoDB's update
 * tree cannot hold both under one array.
 */
export function checkArrayFilterUse(actions: UpdateAction[], filters: Map<string, FilterNode>): void {
  const used = new Set<string>();
  const kinds = new Map<string, { kind: 'array' | 'field'; path: string }>();
  for (const action of actions) {
    let prefix = '';
    action.path.forEach((part, i) => {
      if (isArrayFilterPart(part) && part !== '$[]') {
        const id = part.slice(2, -1);
        if (!filters.has(id))
          throw updateErrors.positional(
            part,
            `no array filter found for identifier '${id}' in path '${action.field}'`,
          );
        used.add(id);
      }
      if (i > 0) {
        const kind = isArrayFilterPart(part) ? 'array' : 'field';
        const seen = kinds.get(prefix);
        if (seen === undefined) kinds.set(prefix, { kind, path: action.field });
        else if (seen.kind !== kind) throw updateErrors.pathConflict(action.field, prefix.slice(1));
      }
      prefix += `.${part}`;
    });
  }
  for (const id of filters.keys()) {
    if (!used.has(id))
      throw updateErrors.badArrayFilters(
        `the array filter for identifier '${id}' was not used in the update`,
      );
  }
}

export interface Resolved {
  action: UpdateAction;
  path: string[];
}

interface Expansion {
  doc: Doc;
  position: number | undefined;
  filters: Map<string, FilterNode>;
  visits: number;
  /** Which elements of the array at a prefix an identifier's filter matches, computed once per document. */
  cache: Map<string, boolean[]>;
}

/**
 * The concrete paths of every action in `doc` (resolved against the document before any action applies, as
 * MongoDB's update tree evaluates array filters), in MongoDB's order of application. Two concrete paths that
 * are equal or contain one another are refused as MongoDB refuses them.
 */
export function resolveActions(
  doc: Doc,
  actions: UpdateAction[],
  filters: Map<string, FilterNode>,
  position: number | undefined,
): Resolved[] {
  const ex: Expansion = { doc, position, filters, visits: 0, cache: new Map() };
  const out: Resolved[] = [];
  for (const action of actions) {
    if (!action.path.some(isPositionalPart)) out.push({ action, path: action.path });
    else expand(ex, action, 0, [], doc, out);
  }
  // One action's paths come out distinct, side by side and in index order: nothing to sort or check.
  if (actions.length === 1) return out;
  out.sort((a, b) => comparePaths(a.path, b.path));
  for (let i = 1; i < out.length; i++) {
    const prev = out[i - 1]!.path;
    const cur = out[i]!.path;
    if (prev.length <= cur.length && prev.every((part, j) => part === cur[j]))
      throw updateErrors.applyConflict(prev.join('.'));
  }
  return out;
}

function expand(
  ex: Expansion,
  action: UpdateAction,
  start: number,
  prefix: string[],
  value: Value | undefined,
  out: Resolved[],
): void {
  const parts = action.path;
  let cur = value;
  const path = prefix.slice();
  for (let i = start; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '$') {
      if (ex.position === undefined)
        throw updateErrors.positional(
          '$',
          'the positional operator did not find the match needed from the query',
        );
      path.push(String(ex.position));
      cur = child(cur, String(ex.position));
    } else if (isArrayFilterPart(part)) {
      const at = path.join('.');
      if (cur === undefined)
        throw updateErrors.positional(
          part,
          `the path '${at}' must exist in the document in order to apply array updates`,
        );
      if (!Array.isArray(cur))
        throw updateErrors.positional(part, `cannot apply array updates to the non-array element '${at}'`);
      const arr = cur;
      const matches = part === '$[]' ? undefined : filterMatches(ex, path, part.slice(2, -1), arr);
      ex.visits += arr.length;
      if (ex.visits > MAX_POSITIONAL_VISITS)
        throw queryErrors.tooLarge(
          'array elements an update visits through $[] and $[<identifier>]',
          MAX_POSITIONAL_VISITS,
        );
      const last = i === parts.length - 1;
      for (let idx = 0; idx < arr.length; idx++) {
        if (matches !== undefined && !matches[idx]) continue;
        const at = path.slice();
        at.push(String(idx));
        // A leaf element is a path already; deeper parts go on resolving.
        if (last) out.push({ action, path: at });
        else expand(ex, action, i + 1, at, arr[idx], out);
      }
      return;
    } else {
      path.push(part);
      cur = child(cur, part);
    }
  }
  out.push({ action, path });
}

function child(v: Value | undefined, key: string): Value | undefined {
  return Array.isArray(v) || isDoc(v) ? readChild(v, key) : undefined;
}

/** An element matches `$[id]` when `{id: element}` matches the identifier's filter (MongoDB's matchesBSONElement). */
function filterMatches(ex: Expansion, path: string[], id: string, arr: Value[]): boolean[] {
  const key = `${path.join('\u0000')}\u0001${id}`;
  let found = ex.cache.get(key);
  if (found === undefined) {
    const filter = ex.filters.get(id)!;
    found = arr.map((e) => matchesFilter(filter, { [id]: e }));
    ex.cache.set(key, found);
  }
  return found;
}
