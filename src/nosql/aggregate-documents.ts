// Aggregation: the leading $match/$sort/$skip/$limit run as SQL, the remaining stages in JavaScript over
// documents streamed from the database in batches. A $count, or a $group on plain field paths with $sum/$avg
// (src/query/aggregate-sql.ts), right after the $match stages runs as SQL too when the result is exactly the
// evaluator's; otherwise the evaluator runs as before. The collections $lookup and $unionWith read (same game
// and stage) are checked as a find on them would be, then read before the run (foreign-reads.ts).
import { type PipelineStage, runPipeline, splitPushdown } from '../query/aggregate.js';
import { finishCount, finishGroup, groupAsSql } from '../query/aggregate-sql.js';
import { parseFilter } from '../query/filter.js';
import { needsResidual } from '../query/filter-residual.js';
import { parseSort } from '../query/sort.js';
import type { Doc } from '../query/values.js';
import { countMatches } from '../store/document-counts.js';
import { groupRows } from '../store/document-groups.js';
import { type ReadPlan, readBatches } from '../store/document-reads.js';
import type { CollectionEntry } from './collections.js';
import { readForeign } from './foreign-reads.js';
import type { Db, Scope } from './scope.js';

const OUTPUT_BATCH = 200;
/** The evaluator's default bound on groups held (DEFAULT_MAX_BUFFERED): past it, it runs and refuses. */
const MAX_SQL_GROUPS = 100_000;

/** The output of rest[0] computed in SQL, or undefined when it must run in the evaluator. */
async function sqlStage(
  db: Db,
  scope: Scope,
  plan: ReadPlan,
  rest: PipelineStage[],
): Promise<Doc[] | undefined> {
  const first = rest[0];
  if (first === undefined || plan.sort.length > 0 || plan.skip > 0 || plan.limit !== undefined)
    return undefined;
  if (first.op === '$count') return finishCount(first.field, await countMatches(db, scope, plan.filter));
  // A filter with a residual part ($expr, bitwise operators) is exact only when checked document by document.
  if (first.op !== '$group' || needsResidual(plan.filter)) return undefined;
  const agg = groupAsSql(first.spec);
  if (agg?.kind !== 'group') return undefined;
  const rows = await groupRows(db, scope, plan.filter, agg, MAX_SQL_GROUPS);
  if (rows === undefined || rows.length > MAX_SQL_GROUPS) return undefined;
  return finishGroup(agg, rows);
}

function pushdownPlan(stages: PipelineStage[]): { plan: ReadPlan; rest: PipelineStage[] } {
  const { pushdown, rest } = splitPushdown(stages);
  return {
    plan: {
      filter: parseFilter(pushdown.filter),
      sort: parseSort(pushdown.sort),
      skip: pushdown.skip,
      limit: pushdown.limit,
    },
    rest,
  };
}

async function* each(batches: AsyncIterable<Doc[]>): AsyncGenerator<Doc> {
  for await (const batch of batches) yield* batch;
}

/** The pipeline's output documents, in batches as they come. */
export async function* aggregateDocuments(
  db: Db,
  scope: Scope,
  stages: PipelineStage[],
  collections?: CollectionEntry[],
): AsyncGenerator<Doc[]> {
  const { plan, rest } = pushdownPlan(stages);
  const foreign = await readForeign(db, scope, stages, collections);
  const computed = await sqlStage(db, scope, plan, rest);
  const output =
    computed === undefined
      ? runPipeline(rest, each(readBatches(db, scope, plan)), { foreign })
      : runPipeline(rest.slice(1), computed, { foreign });
  let out: Doc[] = [];
  for await (const doc of output) {
    out.push(doc);
    if (out.length >= OUTPUT_BATCH) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}
