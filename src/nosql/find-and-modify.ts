// findAndModify: the first matching document in sort order, locked, then updated or removed in the same
// transaction, answering it as it was before or after (MongoDB's findAndModify command), and distinct: the
// different values of one path among the matching documents.
import type pg from 'pg';
import utils from 'pg/lib/utils.js';
import { parseFieldPath } from '../query/field-path.js';
import { type FilterNode, parseFilter } from '../query/filter.js';
import { MAX_RESIDUAL_SCANNED, needsResidual, residualMatches } from '../query/filter-residual.js';
import { encodeKey } from '../query/key-encoding.js';
import { matchPosition } from '../query/match-position.js';
import { EMPTY_ARRAY, MISSING, walkPath } from '../query/path-walk.js';
import { applyProjection, parseProjection } from '../query/projection.js';
import { compileSort, parseSort } from '../query/sort.js';
import { applyUpdate, parseUpdate, positionFor, seedUpsert } from '../query/update.js';
import { type Doc, toWire, type Value } from '../query/values.js';
import { withTransaction } from '../store/db.js';
import { type CompiledWhere, compileWhere, parseStored, readBatches } from '../store/document-reads.js';
import { lockFirstMatch, lockSortedMatches, removeById, writeBack } from '../store/documents.js';
import { type CollectionEntry, requireActions } from './collections.js';
import { bodyValue, type DocumentOp } from './document-core.js';
import { insertDocuments } from './documents.js';
import { nosqlErrors } from './errors.js';
import { flag, objectBody, storedDocument, withId } from './wire.js';

/** MongoDB's answer: the document (projected) or null, and what happened. */
interface LastError {
  n: number;
  updatedExisting?: boolean;
  upserted?: unknown;
}

const FIND_AND_MODIFY_FIELDS = [
  'query',
  'sort',
  'update',
  'arrayFilters',
  'remove',
  'new',
  'upsert',
  'fields',
] as const;
/** Rows read per statement while a residual filter ($expr, bitwise operators) looks for the first real match. */
const RESIDUAL_BATCH = 100;

function answer(
  doc: Doc | null,
  fields: ReturnType<typeof parseProjection>,
  last: LastError,
  position?: number,
): string {
  const projected =
    doc === null || fields.kind === 'none' ? doc : applyProjection(doc, fields, new Date(), position);
  return JSON.stringify({ value: projected === null ? null : toWire(projected), lastErrorObject: last });
}

/**
 * `{query, sort, update | remove, new, upsert, fields}`. The actions the body needs are checked on the
 * collection: UPDATE (and INSERT for an upsert), or REMOVE.
 */
export async function findAndModifyBody(
  op: DocumentOp & { collection: CollectionEntry },
  db: pg.Pool,
): Promise<string> {
  const b = objectBody(bodyValue(op.body), FIND_AND_MODIFY_FIELDS);
  const remove = flag(b, 'remove');
  const upsert = flag(b, 'upsert');
  const returnNew = flag(b, 'new');
  if (remove && b.update !== undefined) throw nosqlErrors.badBody('give update or remove, not both');
  if (!remove && b.update === undefined) throw nosqlErrors.badBody('update or remove: true is required');
  if (remove && (upsert || returnNew))
    throw nosqlErrors.badBody('remove cannot be combined with upsert or new');
  requireActions(op.collection, op.scope.stage, ...(remove ? (['REMOVE'] as const) : (['UPDATE'] as const)));
  if (upsert) requireActions(op.collection, op.scope.stage, 'INSERT');
  const filter = parseFilter(b.query, new Date(op.now));
  const sort = compileSort(parseSort(b.sort), 'doc');
  const fields = parseProjection(b.fields);
  if (remove && b.arrayFilters !== undefined) throw nosqlErrors.badBody('arrayFilters needs an update');
  const spec = remove ? undefined : parseUpdate(b.update, b.arrayFilters);
  const where = compileWhere(op.scope, filter);
  return withTransaction(db, async (client) => {
    const row = needsResidual(filter)
      ? await firstRealMatch(client, where, sort, filter)
      : await lockFirstMatch(client, where, sort);
    if (!row) {
      if (!spec || !upsert) return answer(null, fields, remove ? { n: 0 } : { n: 0, updatedExisting: false });
      const seeded = applyUpdate(seedUpsert(b.query, spec), spec, { now: new Date(op.now), isInsert: true });
      const doc = withId(seeded.doc, () => op.now);
      await insertDocuments(client, op.scope, [doc]);
      const last = { n: 1, updatedExisting: false, upserted: toWire(doc._id!) };
      return answer(returnNew ? doc : null, fields, last);
    }
    const before = parseStored(row.doc);
    // The position the query matched in the document found, for a `$` of the update or of the projection.
    const matched = fields.positional ? matchPosition(filter, before) : undefined;
    if (!spec) {
      await removeById(client, op.scope, row.id);
      return answer(before, fields, { n: 1 }, matched);
    }
    const position = positionFor(spec, filter, before);
    const result = applyUpdate(before, spec, { now: new Date(op.now), isInsert: false, position });
    if (result.changed) {
      await writeBack(client, op.scope, [row.id], utils.prepareValue([storedDocument(result.doc)]) as string);
    }
    return answer(returnNew ? result.doc : before, fields, { n: 1, updatedExisting: true }, matched);
  });
}

/** The first row in sort order that the whole filter matches, reading the relaxed SQL's rows in batches. */
async function firstRealMatch(
  client: pg.PoolClient,
  where: CompiledWhere,
  sort: string,
  filter: FilterNode,
): Promise<{ id: string; doc: string } | undefined> {
  let left = MAX_RESIDUAL_SCANNED;
  for (let offset = 0; ; offset += RESIDUAL_BATCH) {
    const rows = await lockSortedMatches(client, where, sort, offset, RESIDUAL_BATCH);
    // Checked in slices between turns of the event loop, under the same cap on tested documents as a find.
    const texts = (async function* () {
      yield rows.map((r) => r.doc);
    })();
    for await (const kept of residualMatches(filter, texts, parseStored, { maxScanned: left }))
      return rows.find((r) => r.doc === kept[0]);
    left -= rows.length;
    if (rows.length < RESIDUAL_BATCH) return undefined;
  }
}

/** Prior art's cap on an answer's JSON text, as for find and aggregate. */
const DISTINCT_LIMIT = 4 * 1024 * 1024;

/**
 * `{key, query}` → `{values}`: the different values the path takes among the matching documents, an array's
 * elements each counted as a value (MongoDB's distinct). Values equal in BSON comparison (5, 5.0 and long 5)
 * are one; the answer lists them in BSON order.
 */
export async function distinctBody(op: DocumentOp, db: pg.Pool): Promise<string> {
  const b = objectBody(bodyValue(op.body), ['key', 'query']);
  if (typeof b.key !== 'string') throw nosqlErrors.badBody('key must be a field path (a string)');
  const parts = parseFieldPath(b.key);
  const filter = parseFilter(b.query);
  const seen = new Map<string, Value>();
  let bytes = 0;
  for await (const docs of readBatches(db, op.scope, { filter, sort: [], skip: 0, limit: undefined })) {
    for (const doc of docs) {
      for (const v of walkPath(doc, parts, 'sort')) {
        if (v === MISSING || v === EMPTY_ARRAY) continue;
        const key = encodeKey(v).toString('latin1');
        if (seen.has(key)) continue;
        seen.set(key, v);
        bytes += JSON.stringify(toWire(v)).length + 1;
        if (bytes > DISTINCT_LIMIT) throw nosqlErrors.responseTooLarge(DISTINCT_LIMIT);
      }
    }
  }
  // Latin-1 text has one UTF-16 unit per byte: the default string order is the keys' byte order.
  const keys = [...seen.keys()].sort();
  return JSON.stringify({ values: keys.map((k) => toWire(seen.get(k)!)) });
}
