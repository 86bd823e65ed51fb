// Updates: matching rows are locked and read, the update is applied in JavaScript, the results written back,
// all in one transaction; an upsert inserts the document seeded from the filter when nothing matched.
import type pg from 'pg';
import type { FilterNode } from '../query/filter.js';
import { applyUpdate, seedUpsert, type UpdateSpec } from '../query/update.js';
import { type Doc, fromStored, type Value } from '../query/values.js';
import { withTransaction } from '../store/db.js';
import { insertDocuments } from './documents.js';
import { nosqlErrors } from './errors.js';
import { whereSql } from './read.js';
import type { Scope } from './scope.js';
import { storedDocument, withId } from './wire.js';

export interface UpdateRequest {
  filter: FilterNode;
  /** The filter as sent, for the upsert seed. */
  rawQuery: unknown;
  spec: UpdateSpec;
  multi: boolean;
  upsert: boolean;
}

export interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: Value | undefined;
}

const BATCH = 500;

export async function updateDocuments(
  pool: pg.Pool,
  scope: Scope,
  req: UpdateRequest,
  clock: () => number,
): Promise<UpdateOutcome> {
  if (req.multi && req.spec.kind === 'replace') throw nosqlErrors.multiReplacement();
  const now = new Date(clock());
  return withTransaction(pool, async (client) => {
    let matched = 0;
    let modified = 0;
    let afterId: string | undefined;
    for (;;) {
      const rows = await lockMatches(client, scope, req.filter, afterId, req.multi ? BATCH : 1);
      const writes: Array<{ id: string; text: string }> = [];
      for (const row of rows) {
        const result = applyUpdate(fromStored(row.doc) as Doc, req.spec, { now, isInsert: false });
        if (result.changed) writes.push({ id: row.id, text: storedDocument(result.doc) });
      }
      await writeBack(client, scope, writes);
      matched += rows.length;
      modified += writes.length;
      if (!req.multi || rows.length < BATCH) break;
      afterId = rows[rows.length - 1]!.id;
    }
    if (matched > 0 || !req.upsert)
      return { matchedCount: matched, modifiedCount: modified, upsertedId: undefined };
    const seeded = applyUpdate(seedUpsert(req.rawQuery, req.spec), req.spec, { now, isInsert: true });
    const doc = withId(seeded.doc, clock);
    await insertDocuments(client, scope, [doc]);
    return { matchedCount: 0, modifiedCount: 0, upsertedId: doc._id };
  });
}

/** The next matching rows after `afterId`, in id order, locked until the transaction ends. */
async function lockMatches(
  client: pg.PoolClient,
  scope: Scope,
  filter: FilterNode,
  afterId: string | undefined,
  limit: number,
): Promise<Array<{ id: string; doc: unknown }>> {
  const values: unknown[] = [];
  let where = whereSql(scope, filter, values);
  if (afterId !== undefined) {
    values.push(afterId);
    where += ` AND id > $${values.length}`;
  }
  values.push(limit);
  const { rows } = await client.query<{ id: string; doc: unknown }>(
    `SELECT id, doc FROM nosql_documents WHERE ${where} ORDER BY id LIMIT $${values.length} FOR UPDATE`,
    values,
  );
  return rows;
}

async function writeBack(client: pg.PoolClient, scope: Scope, writes: Array<{ id: string; text: string }>) {
  if (writes.length === 0) return;
  await client.query(
    `UPDATE nosql_documents AS d SET doc = u.doc::jsonb
     FROM unnest($4::text[], $5::text[]) AS u(id, doc)
     WHERE d.game_id = $1 AND d.stage = $2 AND d.collection = $3 AND d.id = u.id`,
    [scope.game, scope.stage, scope.collection, writes.map((w) => w.id), writes.map((w) => w.text)],
  );
}
