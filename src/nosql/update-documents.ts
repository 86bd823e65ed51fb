// Updates: matching rows are locked and read, the update is applied in JavaScript (on a compute thread when
// the documents are large), the results written back, all in one transaction; an upsert inserts the document seeded from the filter when nothing matched.
import type pg from 'pg';
import utils from 'pg/lib/utils.js';
import { parseFilter } from '../query/filter.js';
import { applyUpdate, parseUpdate, seedUpsert, type UpdateSpec } from '../query/update.js';
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
const specs = new WeakMap<object, UpdateSpec>();

function specOf(update: unknown): UpdateSpec {
  if (typeof update !== 'object' || update === null) return parseUpdate(update);
  let spec = specs.get(update);
  if (!spec) {
    spec = parseUpdate(update);
    specs.set(update, spec);
  }
  return spec;
}

export interface AppliedBatch {
  /** Positions of the documents the update changed. */
  changed: number[];
  /** Their new stored texts, as one text[] literal (built here, so the thread that ran the update pays it). */
  literal: string;
}

/** Applies the update to stored documents (a compute task when they are large). */
export function applyToStored(input: { texts: string[]; update: unknown; now: number }): AppliedBatch {
  const spec = specOf(input.update);
  const ctx = { now: new Date(input.now), isInsert: false };
  const changed: number[] = [];
  const texts: string[] = [];
  input.texts.forEach((text, i) => {
    const result = applyUpdate(parseStored(text), spec, ctx);
    if (!result.changed) return;
    changed.push(i);
    texts.push(storedDocument(result.doc));
  });
  return { changed, literal: utils.prepareValue(texts) as string };
}

export async function updateDocuments(
  pool: pg.Pool,
  scope: Scope,
  req: UpdateRequest,
  now: number,
  compute: DocumentCompute,
): Promise<UpdateOutcome> {
  const filter = parseFilter(req.query);
  const spec = specOf(req.update);
  if (req.multi && spec.kind === 'replace') throw nosqlErrors.multiReplacement();
  const where = compileWhere(scope, filter);
  return withTransaction(pool, async (client) => {
    let matched = 0;
    let modified = 0;
    let afterId: string | undefined;
    for (;;) {
      const rows = await lockMatches(client, where, afterId, req.multi ? BATCH : 1);
      const texts = rows.map((r) => r.doc);
      const size = texts.reduce((n, t) => n + t.length, 0);
      const applied = await compute.run('apply', { texts, update: req.update, now }, size);
      await writeBack(
        client,
        scope,
        applied.changed.map((i) => rows[i]!.id),
        applied.literal,
      );
      matched += rows.length;
      modified += applied.changed.length;
      if (!req.multi || rows.length < BATCH) break;
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
