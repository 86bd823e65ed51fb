// Index entries for counts (migration 0020): beside each API index, the key of its first path for every document
// of its collection, in nosql_key_entries, so that a count of an equality, $in or range on that path is an Index
// Only Scan instead of a visit to each match's heap page. Triggers keep the entries with every write; this module
// registers an index, fills its entries once its expression index is built, and forgets it.
//
// Why a fill is exact while writers go on (PostgreSQL builds CONCURRENTLY):
// 1. the index is registered (not ready) and committed first: every writer whose trigger runs later keeps its
//    entries (the trigger's query takes its own snapshot; writers of documents run at READ COMMITTED);
// 2. the expression index is built: CREATE INDEX (CONCURRENTLY or not) first waits for every transaction that
//    holds a write lock on nosql_documents, so a writer whose trigger ran before step 1 has ended;
// 3. the fill reads the collection's documents FOR SHARE, in id order (the order in which an update of many
//    documents locks them, so the two never wait for each other in a cycle): a document a writer is changing is
//    read once that writer has committed, in its new version (or skipped when deleted), and a writer coming later
//    waits for the fill and then changes the entry the fill wrote. Entries the triggers wrote meanwhile are kept
//    (ON CONFLICT DO NOTHING);
// 4. the index is marked ready, in the fill's transaction.
// A count uses an index's entries only while the index is ready in the count's own snapshot.
import type pg from 'pg';
import type { DdlOptions } from './indexes.js';
import { query } from './query.js';
import type { Db, Scope } from './scope.js';

/** Registers the API index `pgName` (not ready): from now on writers keep its entries. Answers its id. */
export async function registerKeyIndex(
  db: Db,
  scope: Scope,
  pgName: string,
  path: string[],
): Promise<number> {
  const { rows } = await query<{ id: string }>(
    db,
    `INSERT INTO nosql_key_indexes (pg_name, game_id, stage, collection, path) VALUES ($1, $2, $3, $4, $5::text[])
     RETURNING id`,
    [pgName, scope.game, scope.stage, scope.collection, path],
  );
  return Number(rows[0]!.id);
}

/**
 * Writes the entries of every document of the index's collection and marks it ready, in one transaction under
 * the build's time limit (steps 3 and 4 above). Run after the expression index is built.
 */
export async function fillKeyIndex(pool: pg.Pool, id: number, options: DdlOptions): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL statement_timeout = ${Math.trunc(options.buildTimeoutMs)}`);
    await client.query(
      `INSERT INTO nosql_key_entries (index_id, key, doc_id)
       SELECT k.id, pb_pk(d.doc, k.path), d.id
         FROM nosql_key_indexes AS k,
              LATERAL (SELECT id, doc FROM nosql_documents AS x
                        WHERE x.game_id = k.game_id AND x.stage = k.stage AND x.collection = k.collection
                        ORDER BY x.id FOR SHARE) AS d
        WHERE k.id = $1
       ON CONFLICT DO NOTHING`,
      [id],
    );
    await client.query('UPDATE nosql_key_indexes SET ready = true WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch((r: Error) => {
      failure = r;
    });
    throw e;
  } finally {
    client.release(failure);
  }
}

/** Forgets the indexes of these PostgreSQL names and their entries, in one statement. */
export async function forgetKeyIndexes(db: Db, pgNames: string[]): Promise<void> {
  if (pgNames.length === 0) return;
  await query(
    db,
    `WITH gone AS (DELETE FROM nosql_key_indexes WHERE pg_name = ANY($1::text[]) RETURNING id)
     DELETE FROM nosql_key_entries AS e USING gone WHERE e.index_id = gone.id`,
    [pgNames],
  );
}
