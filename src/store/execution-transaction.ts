// One transaction that spans a Cloud Code execution (src/script/): every write the script makes goes through it,
// so a failed execution rolls back all of them. The nosql core functions are written against a pg.Pool and open
// their own transactions (withTransaction: connect, BEGIN, COMMIT or ROLLBACK); handed this pool, each of them
// becomes a savepoint of the execution's transaction instead, so a failed statement is undone alone and the
// execution's transaction stays usable (as a MongoDB error leaves the other writes of a script in place).
// Statements are few: the BEGIN goes with the first write's savepoint in one round trip, each later write's
// savepoint with the release of the one before, and a core function's own transaction inside a write adds none.
import type pg from 'pg';
import { shareArrayFacts } from './multikey.js';

export interface ExecutionTransaction {
  /** The pool the core functions are given: its statements run on the execution's connection. */
  pool: pg.Pool;
  /** The connection itself, for repository calls that take a Db. */
  client: pg.PoolClient;
  /**
   * Runs one write of the script: a throw undoes its statements alone (rolls back to the savepoint taken before
   * it) and is rethrown; the execution's other writes stay. Writes of one execution run one after another.
   */
  write<T>(fn: () => Promise<T>): Promise<T>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The savepoint before each write: `fresh` when it holds nothing yet, `used` once a write ran after it. */
type WriteMark = 'none' | 'fresh' | 'used';
const MARK = 'cc_write';

const BEGIN = /^\s*BEGIN\b/i;
const COMMIT = /^\s*COMMIT\s*$/i;
const ROLLBACK = /^\s*ROLLBACK\s*$/i;

/**
 * Opens the execution's transaction on a connection of `pool`; commit or rollback releases the connection.
 * `forWrite` takes the first write's savepoint in the same round trip as the BEGIN.
 */
export async function openExecutionTransaction(
  pool: pg.Pool,
  forWrite = false,
): Promise<ExecutionTransaction> {
  const client = await pool.connect();
  try {
    // One simple-protocol query with two statements: one round trip.
    await client.query(forWrite ? `BEGIN; SAVEPOINT ${MARK}` : 'BEGIN');
  } catch (e) {
    client.release(true);
    throw e;
  }
  const tx = wrap(client, MARK, forWrite ? 'fresh' : 'none', async (statement) => {
    try {
      await client.query(statement);
      client.release();
    } catch (e) {
      client.release(true);
      if (statement === 'COMMIT') throw e;
    }
  });
  // Reads on the transaction compile with what the pool knows of the collection's arrays (no statement to learn it
  // again in every execution); the statements' own guard keeps them exact.
  shareArrayFacts(tx.pool, pool);
  return tx;
}

/**
 * A nested execution's transaction (a request run with its scripts by SparkRequests.<Request>.Execute): a
 * savepoint of the calling execution's transaction, on its connection. Its commit releases the savepoint (the
 * writes become the caller's, committed or rolled back with them); its rollback undoes the nested writes alone.
 */
export async function openNestedTransaction(
  parent: ExecutionTransaction,
  depth: number,
): Promise<ExecutionTransaction> {
  const name = `cc_exec_${depth}`;
  await parent.client.query(`SAVEPOINT ${name}`);
  const tx = wrap(parent.client, `${MARK}_${depth}`, 'none', async (statement) => {
    await parent.client.query(
      statement === 'COMMIT'
        ? `RELEASE SAVEPOINT ${name}`
        : `ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`,
    );
  });
  shareArrayFacts(tx.pool, parent.pool);
  return tx;
}

/** The execution's transaction over a connection whose BEGIN (or savepoint) is done; `end` closes it. */
function wrap(
  client: pg.PoolClient,
  markName: string,
  firstMark: WriteMark,
  end: (statement: 'COMMIT' | 'ROLLBACK') => Promise<void>,
): ExecutionTransaction {
  const raw = client.query.bind(client) as (...args: unknown[]) => unknown;
  let depth = 0;
  let released = false;
  let mark: WriteMark = firstMark;
  /** Inside write(): the first nested BEGIN is already covered by the write's savepoint. */
  let covered = false;
  // A nested "transaction" of a core function: its BEGIN, COMMIT and ROLLBACK become savepoint statements.
  const nested = (): pg.PoolClient => {
    const names: string[] = [];
    const query = (text: unknown, ...rest: unknown[]) => {
      if (released) return Promise.reject(new Error('the execution transaction has ended'));
      if (typeof text === 'string' && BEGIN.test(text)) {
        if (covered && depth === 0 && names.length === 0) {
          // A core function's transaction directly inside a write: the write's savepoint undoes it on a throw
          // (the function rethrows), so its own BEGIN, COMMIT and ROLLBACK cost nothing.
          names.push('');
          depth += 1;
          return Promise.resolve({ rows: [], rowCount: null });
        }
        depth += 1;
        const name = `cc_sp_${depth}`;
        names.push(name);
        return client.query(`SAVEPOINT ${name}`);
      }
      if (typeof text === 'string' && (COMMIT.test(text) || ROLLBACK.test(text))) {
        const name = names.pop();
        if (name === undefined) throw new Error('no savepoint to end');
        depth -= 1;
        if (name === '') return Promise.resolve({ rows: [], rowCount: null });
        return COMMIT.test(text)
          ? client.query(`RELEASE SAVEPOINT ${name}`)
          : client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      }
      return raw(text, ...rest);
    };
    return { query, release: () => {} } as unknown as pg.PoolClient;
  };
  const facade = {
    query: (...args: unknown[]) =>
      released ? Promise.reject(new Error('the execution transaction has ended')) : raw(...args),
    connect: async () => nested(),
  } as unknown as pg.Pool;
  const finish = async (statement: 'COMMIT' | 'ROLLBACK') => {
    if (released) return;
    released = true;
    await end(statement);
  };
  // The connection as callers see it: once the execution ended it refuses statements (the connection itself is
  // back in the pool, maybe serving another request).
  const guarded = {
    query: (...args: unknown[]) =>
      released ? Promise.reject(new Error('the execution transaction has ended')) : raw(...args),
    release: () => {},
  } as unknown as pg.PoolClient;
  const write = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (released) throw new Error('the execution transaction has ended');
    if (mark === 'used') await client.query(`RELEASE SAVEPOINT ${markName}; SAVEPOINT ${markName}`);
    else if (mark === 'none') await client.query(`SAVEPOINT ${markName}`);
    mark = 'used';
    covered = true;
    try {
      return await fn();
    } catch (e) {
      // Rolled back to, the savepoint stays and holds nothing: the next write needs no new one.
      if (!released) {
        await client.query(`ROLLBACK TO SAVEPOINT ${markName}`).catch(() => {});
        mark = 'fresh';
      }
      throw e;
    } finally {
      covered = false;
    }
  };
  return {
    pool: facade,
    client: guarded,
    write,
    commit: () => finish('COMMIT'),
    rollback: () => finish('ROLLBACK'),
  };
}
