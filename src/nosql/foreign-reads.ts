// The other collections of an aggregation ($lookup's `from`, $unionWith's `coll`), in the same game and stage:
// each checked as a find on it would be (400 bad name, 404 not in this stage, 403 FIND not allowed), then read
// whole before the pipeline runs (only what the sub-pipeline's leading $match/$sort/$skip/$limit keep, in SQL),
// within a document and a byte cap for all of them together.
import type { PipelineRead, PipelineStage, Pushdown } from '../query/aggregate.js';
import { foreignReadsOf } from '../query/aggregate-nested.js';
import { queryErrors } from '../query/errors.js';
import { parseFilter } from '../query/filter.js';
import { pipelineErrors } from '../query/pipeline-errors.js';
import { parseSort } from '../query/sort.js';
import type { Doc } from '../query/values.js';
import { parseStored, readTextBatches } from '../store/document-reads.js';
import { type CollectionEntry, requireActions } from './collections.js';
import { nosqlErrors } from './errors.js';
import { checkCollectionName, type Db, type Scope } from './scope.js';

/** Documents all the $lookup and $unionWith reads of one pipeline may hold. */
export const MAX_FOREIGN_DOCUMENTS = 100_000;
/** Bytes (stored JSON text) all the $lookup and $unionWith reads of one pipeline may hold. */
export const MAX_FOREIGN_BYTES = 32 * 1024 * 1024;

/**
 * The rule of a find on `name` in the request's stage. `collections` is the stage's listing (undefined: none
 * was read because the body names no such stage, so no other collection may be read).
 */
export function checkReadable(collections: CollectionEntry[] | undefined, scope: Scope, name: string): void {
  checkCollectionName(name);
  const entry = collections?.find((c) => c.name === name);
  if (entry === undefined) throw nosqlErrors.collectionNotFound(name);
  requireActions(entry, scope.stage, 'FIND');
}

/** True when a body may hold $lookup or $unionWith (a \u escape may spell them: then it is listed too). */
export function mayReadOthers(body: { value: unknown } | { text: string }): boolean {
  const text = 'text' in body ? body.text : JSON.stringify(body.value ?? null);
  return text.includes('$lookup') || text.includes('$unionWith') || text.includes('\\u');
}

function planOf(pushdown: Pushdown) {
  return {
    filter: parseFilter(pushdown.filter),
    sort: parseSort(pushdown.sort),
    skip: pushdown.skip,
    limit: pushdown.limit,
  };
}

/** The documents of each read of the pipeline (nested ones too), as `runPipeline`'s `foreign` option. */
export async function readForeign(
  db: Db,
  scope: Scope,
  stages: PipelineStage[],
  collections: CollectionEntry[] | undefined,
  caps = { documents: MAX_FOREIGN_DOCUMENTS, bytes: MAX_FOREIGN_BYTES },
): Promise<(read: PipelineRead) => Doc[]> {
  const reads = foreignReadsOf(stages);
  for (const read of reads) checkReadable(collections, scope, read.collection);
  const loaded = new Map<PipelineRead, Doc[]>();
  let count = 0;
  let bytes = 0;
  for (const read of reads) {
    const docs: Doc[] = [];
    const target = { ...scope, collection: read.collection };
    for await (const texts of readTextBatches(db, target, planOf(read.pushdown))) {
      for (const text of texts) {
        count++;
        bytes += text.length;
        if (count > caps.documents) throw pipelineErrors.bufferLimit('$lookup/$unionWith', caps.documents);
        if (bytes > caps.bytes)
          throw queryErrors.tooLarge('bytes of the collections $lookup and $unionWith read', caps.bytes);
        docs.push(parseStored(text));
      }
    }
    loaded.set(read, docs);
  }
  return (read) => loaded.get(read) ?? [];
}
