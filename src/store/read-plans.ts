// Which reads run on a cached plan (store/query.ts planCachedQuery). A read writes its scope as literals
// (scopeLiterals), so the text of a statement names its collection and PostgreSQL can match the partial API
// indexes in a plan it keeps for that text; it binds its values, and writes its LIMIT as an integer. A
// generic plan does not know the bound values: with two indexes to choose from it may walk another than a
// custom plan would, so only statements with one index to use at most are named (docs/query-engine.md).
import type { FilterNode } from '../query/filter.js';
import type { ArrayFacts } from '../query/filter-sql.js';
import type { SortSpec } from '../query/sort.js';
import { type Scope, scopeLiterals } from './scope.js';

/**
 * The first key paths of the indexes a filter's predicates could use ('_id' for the primary key); undefined
 * when the collection's indexes are not known or the scope is not written as literals (then no plan is cached).
 * Every predicate on an indexed path counts, whether or not PostgreSQL could use the index for it.
 */
export function indexChoices(scope: Scope, filter: FilterNode, facts?: ArrayFacts): Set<string> | undefined {
  if (facts?.indexed === undefined || scopeLiterals(scope) === undefined) return undefined;
  const indexed = facts.indexed;
  const out = new Set<string>();
  const walk = (node: FilterNode): void => {
    if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor') node.children.forEach(walk);
    else if (node.kind === 'not') walk(node.child);
    else if (node.kind === 'path' && (node.path === '_id' || indexed(node.path))) out.add(node.path);
  };
  walk(filter);
  return out;
}

/**
 * Whether a statement may run on a cached plan (planCachedQuery): its scope is written as literals and it
 * gives the planner at most one index to choose (the filter's, or the order's: `orderPath` is the first sort
 * path, '_id' for ORDER BY id, undefined for no order). PostgreSQL's generic plan does not know the bound
 * values, so with two indexes it may walk the one a custom plan would not (measured: `{country, level >= 50}`
 * went to the level index, reading 274 entries instead of 44); with one, it can only differ in whether it uses it.
 */
export function cachedPlan(
  where: { indexed?: Set<string> | undefined },
  orderPath: string | undefined,
  facts?: ArrayFacts,
): boolean {
  if (where.indexed === undefined) return false;
  const choices = new Set(where.indexed);
  if (orderPath === '_id' || (orderPath !== undefined && facts?.indexed?.(orderPath))) choices.add(orderPath);
  return choices.size <= 1;
}

/** A non-negative safe integer as SQL text; anything else is a bug of the caller. */
export function integer(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return String(n);
}

/**
 * The path a read walks in its index's order to a limit (its sort's first path, when it has a limit): a range
 * on it is compiled as a row comparison (query/filter-sql.ts rowRange), so that its cached plan is the index walk.
 */
export function orderedBy(plan: { sort: SortSpec; limit: number | undefined }): string | undefined {
  return plan.limit !== undefined && plan.sort.length > 0 ? plan.sort[0]!.path : undefined;
}
