// Aggregation: the leading $match/$sort/$skip/$limit run as SQL, the remaining stages in JavaScript over
// documents streamed from the database in batches. The collections $lookup and $unionWith read (same game and
// stage) are checked as a find on them would be, then read before the run (foreign-reads.ts).
import { type PipelineStage, runPipeline, splitPushdown } from '../query/aggregate.js';
import { parseFilter } from '../query/filter.js';
import { parseSort } from '../query/sort.js';
import type { Doc } from '../query/values.js';
import { type ReadPlan, readBatches } from '../store/document-reads.js';
import type { CollectionEntry } from './collections.js';
import { readForeign } from './foreign-reads.js';
import type { Db, Scope } from './scope.js';

const OUTPUT_BATCH = 200;

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
  let out: Doc[] = [];
  for await (const doc of runPipeline(rest, each(readBatches(db, scope, plan)), { foreign })) {
    out.push(doc);
    if (out.length >= OUTPUT_BATCH) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}
