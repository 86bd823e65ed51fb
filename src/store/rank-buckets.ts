// The runtime_rank_buckets table, the order statistic of a board: entry counts per key range, kept exact by
// writers, read to rank in ~1 ms.
//
// Invariant: in every committed state, a bucket counts exactly the entries with lower <= ord < upper. A writer
// changes an entry and the count of the bucket holding its key in one transaction, under that bucket's row lock.
// A bucket splits only under its own lock, lowering its `upper`; a writer that waited for that lock re-checks
// `upper` on the row as committed (READ COMMITTED re-evaluates the WHERE of an UPDATE on the newest row version),
// finds the bucket no longer holds its key, and looks again in a fresh snapshot, where the new bucket is.
import type pg from 'pg';

/** A bucket splits in two when it reaches this many entries: a rank counts at most this many index entries. */
export const SPLIT_AT = 1024;

export interface BucketChange {
  boardId: string;
  key: Buffer;
  delta: 1 | -1;
}

/** The first bucket of a new board: from the empty key, below every ord, with no end. */
export async function createFirstBucket(client: pg.PoolClient, boardId: string): Promise<void> {
  await client.query(
    `INSERT INTO runtime_rank_buckets (board_id, lower, upper, n) VALUES ($1, '\\x'::bytea, NULL, 0)
     ON CONFLICT DO NOTHING`,
    [boardId],
  );
}

const ADJUST = `
  UPDATE runtime_rank_buckets SET n = n + $3
  WHERE board_id = $1
    AND lower = (SELECT lower FROM runtime_rank_buckets WHERE board_id = $1 AND lower <= $2 ORDER BY lower DESC LIMIT 1)
    AND (upper IS NULL OR upper > $2)
  RETURNING lower, upper, n`;

// Each failed try means a split committed in between; a board has far fewer splits than this in any instant.
const MAX_TRIES = 1000;

interface FullBucket {
  boardId: string;
  lower: Buffer;
  upper: Buffer | null;
}

/**
 * Adds delta to the bucket holding key; the lock is held until the transaction ends. Answers the bucket when
 * it reached the split size (the caller splits it once all of the transaction's changes are counted).
 */
async function adjustBucket(
  client: pg.PoolClient,
  change: BucketChange,
  splitAt: number,
): Promise<FullBucket | undefined> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const { rows } = await client.query<{ lower: Buffer; upper: Buffer | null; n: string }>({
      name: 'runtime-bucket-adjust',
      text: ADJUST,
      values: [change.boardId, change.key, change.delta],
    });
    const hit = rows[0];
    if (!hit) continue;
    return change.delta > 0 && Number(hit.n) >= splitAt
      ? { boardId: change.boardId, lower: hit.lower, upper: hit.upper }
      : undefined;
  }
  throw new Error(`board ${change.boardId}: no bucket holds the key`);
}

/** Splits a bucket (its lock held) at its middle entry; both halves are recounted from the entries. */
async function splitBucket(
  client: pg.PoolClient,
  boardId: string,
  bucket: { lower: Buffer; upper: Buffer | null },
  splitAt: number,
): Promise<void> {
  const { lower, upper } = bucket;
  // $1 board, $2 from, $3 the bucket's upper when it has one.
  const below = upper ? 'AND ord < $3' : '';
  const from = (start: Buffer) => (upper ? [boardId, start, upper] : [boardId, start]);
  const { rows: mid } = await client.query<{ ord: Buffer }>(
    `SELECT ord FROM runtime_entries WHERE board_id = $1 AND ord >= $2 ${below}
     ORDER BY ord OFFSET ${Math.max(1, Math.floor(splitAt / 2))} LIMIT 1`,
    from(lower),
  );
  const middle = mid[0]?.ord;
  if (!middle) return;
  await client.query(
    `INSERT INTO runtime_rank_buckets (board_id, lower, upper, n)
     SELECT $1, $2::bytea, ${upper ? '$3::bytea' : 'NULL'}, count(*)
     FROM runtime_entries WHERE board_id = $1 AND ord >= $2 ${below}`,
    from(middle),
  );
  await client.query(
    `UPDATE runtime_rank_buckets SET upper = $3,
       n = (SELECT count(*) FROM runtime_entries WHERE board_id = $1 AND ord >= $2 AND ord < $3)
     WHERE board_id = $1 AND lower = $2`,
    [boardId, lower, middle],
  );
}

function compareChanges(a: BucketChange, b: BucketChange): number {
  const byBoard = BigInt(a.boardId) - BigInt(b.boardId);
  if (byBoard !== 0n) return byBoard < 0n ? -1 : 1;
  return Buffer.compare(a.key, b.key);
}

/**
 * Applies a transaction's bucket changes last, in one global order (board, then key), so that writers never
 * wait for each other in a cycle and hold the shared bucket locks only for the end of their transaction.
 * Full buckets split after every change is counted: a split recounts its halves from the entries, which already
 * hold all of this transaction's changes, so a change still to be counted after a split (a score moving down
 * within the bucket: its +1 sorts before its -1) would be counted twice.
 */
export async function applyBucketChanges(
  client: pg.PoolClient,
  changes: BucketChange[],
  splitAt = SPLIT_AT,
): Promise<void> {
  const full = new Map<string, FullBucket>();
  for (const change of [...changes].sort(compareChanges)) {
    const bucket = await adjustBucket(client, change, splitAt);
    if (bucket) full.set(`${bucket.boardId}:${bucket.lower.toString('hex')}`, bucket);
  }
  for (const bucket of full.values()) await splitBucket(client, bucket.boardId, bucket, splitAt);
}
