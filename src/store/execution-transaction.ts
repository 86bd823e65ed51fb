// One transaction that spans a Cloud Code execution (src/script/): every write the script makes goes through it,
// so a failed execution rolls back all of them. The nosql core functions are written against a pg.Pool and open
// their own transactions (withTransaction: connect, BEGIN, COMMIT or ROLLBACK); handed this pool, each of them
// becomes a savepoint of the execution's transaction instead, so a failed statement is undone alone and the
// execution's transaction stays usable (as a MongoDB error leaves the other writes of a script in place).
import type pg from 'pg';

export interface ExecutionTransaction {
  /** The pool the core functions are given: its statements run on the execution's connection. */
  pool: pg.Pool;
  /** The connection itself, for repository calls that take a Db. */
  client: pg.PoolClient;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

const BEGIN = /^\s*BEGIN\b/i;
const COMMIT = /^\s*COMMIT\s*$/i;
const ROLLBACK = /^\s*ROLLBACK\s*$/i;

/** Opens the execution's transaction on a connection of `pool`; commit or rollback releases the connection. */
export async function openExecutionTransaction(pool: pg.Pool): Promise<ExecutionTransaction> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
  } catch (e) {
    client.release(true);
    throw e;
  }
  const raw = client.query.bind(client) as (...args: unknown[]) => unknown;
  let depth = 0;
  let released = false;
  // A nested "transaction" of a core function: its BEGIN, COMMIT and ROLLBACK become savepoint statements.
  const nested = (): pg.PoolClient => {
    const names: string[] = [];
    const query = (text: unknown, ...rest: unknown[]) => {
      if (released) return Promise.reject(new Error('the execution transaction has ended'));
      if (typeof text === 'string' && BEGIN.test(text)) {
        depth += 1;
        const name = `cc_sp_${depth}`;
        names.push(name);
        return client.query(`SAVEPOINT ${name}`);
      }
      if (typeof text === 'string' && (COMMIT.test(text) || ROLLBACK.test(text))) {
        const name = names.pop();
        if (name === undefined) throw new Error('no savepoint to end');
        depth -= 1;
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
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    if (released) return;
    released = true;
    try {
      await client.query(statement);
      client.release();
    } catch (e) {
      client.release(true);
      if (statement === 'COMMIT') throw e;
    }
  };
  // The connection as callers see it: once the execution ended it refuses statements (the connection itself is
  // back in the pool, maybe serving another request).
  const guarded = {
    query: (...args: unknown[]) =>
      released ? Promise.reject(new Error('the execution transaction has ended')) : raw(...args),
    release: () => {},
  } as unknown as pg.PoolClient;
  return { pool: facade, client: guarded, commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
}
