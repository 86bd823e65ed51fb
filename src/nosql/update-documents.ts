// Updates: matching rows are locked and read, the update is applied in JavaScript (on a compute thread when
// the documents are large), the results written back, all in one transaction; an upsert inserts the document seeded from the filter when nothing matched.
import type pg from 'pg';
import utils from 'pg/lib/utils.js';
import { type FilterNode, matchesFilter, parseFilter } from '../query/filter.js';
import { needsResidual } from '../query/filter-residual.js';
import { applyUpdate, parseUpdate, positionFor, seedUpsert, type UpdateSpec } from '../query/update.js';
import type { Value } from '../query/values.js';
import { withTransaction } from '../store/db.js';
import { compileWhere, parseStored } from '../store/document-reads.js';
import { lockMatches, writeBack } from '../store/documents.js';
import type { DocumentCompute } from './compute-tasks.js';
import { insertDocuments } from './documents.js';
import { nosqlErrors } from './errors.js';
import type { Scope } from './scope.js';
import { storedDocument, withId } from './wire.js';

export interface UpdateRequest {
  /** The filter and the update as sent (the filter also seeds an upsert). */
  query: unknown;
  update: unknown;
  /** The filters of the update's $[<identifier>] paths, as sent. */
  arrayFilters: unknown;
  multi: boolean;
  upsert: boolean;
}

export interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: Value | undefined;
}

const BATCH = 500;

/** Parsed once per update object sent, however many batches apply it on this thread. */
const specs = new WeakMap<object, { arrayFilters: unknown; spec: UpdateSpec }>();
const filters = new WeakMap<object, FilterNode>();

export function specOf(update: unknown, arrayFilters: unknown): UpdateSpec {
  if (typeof update !== 'object' || update === null) return parseUpdate(update, arrayFilters);
  const cached = specs.get(update);
  if (cached && cached.arrayFilters === arrayFilters) return cached.spec;
  const spec = parseUpdate(update, arrayFilters);
  specs.set(update, { arrayFilters, spec });
  return spec;
}

function filterOf(query: unknown, now: number): FilterNode {
  if (typeof query !== 'object' || query === null) return parseFilter(query, new Date(now));
  let node = filters.get(query);
  if (!node) {
    node = parseFilter(query, new Date(now));
    filters.set(query, node);
  }
  return node;
}

export interface AppliedBatch {
  /** How many of the documents match the filter (all of them unless it has a residual part). */
  matched: number;
  /** Positions of the documents the update changed. */
  changed: number[];
  /** Their new stored texts, as one text[] literal (built here, so the thread that ran the update pays it). */
  literal: string;
}

export interface ApplyInput {
  texts: string[];
  update: unknown;
  arrayFilters: unknown;
  /** The filter as sent: its residual part ($expr, bitwise operators) is checked here, and it places `$`. */
  query: unknown;
  now: number;
  /** Stop after the first matching document (an update without multi). */
  one: boolean;
}

/** Applies the update to the stored documents that match (a compute task when they are large). */
export function applyToStored(input: ApplyInput): AppliedBatch {
  const spec = specOf(input.update, input.arrayFilters);
  const filter = filterOf(input.query, input.now);
  const residual = needsResidual(filter);
  const now = new Date(input.now);
  const changed: number[] = [];
  const texts: string[] = [];
  let matched = 0;
  for (let i = 0; i < input.texts.length; i++) {
    const doc = parseStored(input.texts[i]!);
    if (residual && !matchesFilter(filter, doc)) continue;
    matched++;
    const ctx = { now, isInsert: false, position: positionFor(spec, filter, doc) };
    const result = applyUpdate(doc, spec, ctx);
    if (result.changed) {
      changed.push(i);
      texts.push(storedDocument(result.doc));
    }
    if (input.one) break;
  }
  return { matched, changed, literal: utils.prepareValue(texts) as string };
}

export async function updateDocuments(
  pool: pg.Pool,
  scope: Scope,
  req: UpdateRequest,
  now: number,
  compute: DocumentCompute,
): Promise<UpdateOutcome> {
  const filter = filterOf(req.query, now);
  const spec = specOf(req.update, req.arrayFilters);
  if (req.multi && spec.kind === 'replace') throw nosqlErrors.multiReplacement();
  const where = compileWhere(scope, filter);
  // With a residual filter the SQL matches a superset: rows are read in batches until one really matches.
  const batch = req.multi || needsResidual(filter) ? BATCH : 1;
  return withTransaction(pool, async (client) => {
    let matched = 0;
    let modified = 0;
    let afterId: string | undefined;
    for (;;) {
      const rows = await lockMatches(client, where, afterId, batch);
      const texts = rows.map((r) => r.doc);
      const size = texts.reduce((n, t) => n + t.length, 0);
      const input = { texts, update: req.update, arrayFilters: req.arrayFilters, query: req.query, now };
      const applied = await compute.run('apply', { ...input, one: !req.multi }, size);
      await writeBack(
        client,
        scope,
        applied.changed.map((i) => rows[i]!.id),
        applied.literal,
      );
      matched += applied.matched;
      modified += applied.changed.length;
      if ((!req.multi && matched > 0) || rows.length < batch) break;
      afterId = rows[rows.length - 1]!.id;
    }
    if (matched > 0 || !req.upsert)
      return { matchedCount: matched, modifiedCount: modified, upsertedId: undefined };
    const ctx = { now: new Date(now), isInsert: true };
    const seeded = applyUpdate(seedUpsert(req.query, spec), spec, ctx);
    const doc = withId(seeded.doc, () => now);
    await insertDocuments(client, scope, [doc]);
    return { matchedCount: 0, modifiedCount: 0, upsertedId: doc._id };
  });
}
