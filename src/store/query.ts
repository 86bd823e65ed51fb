// One statement on the store, keeping the connection after an SQL error.
//
// pg.Pool#query destroys its client when the statement fails. On the embedded store every client shares the
// one PGlite connection object, and destroying a client ends that shared connection under the next client:
// the following statements fail ("Connection terminated unexpectedly") or read another statement's rows.
// An SQL error (one with a SQLSTATE) leaves a connection usable, so the client goes back to the pool intact.
import { hash } from 'node:crypto';
import pg from 'pg';
import { isConnectionFailure } from './connection-failures.js';
import type { Db } from './scope.js';

function isSqlError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

export function query<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  // (text, values) as given: a compute thread's stand-in for the pool (compute/remote-db.ts) takes only these.
  if (!(db instanceof pg.Pool)) return db.query<T>(text, values);
  return onPoolClient(db, (client) => client.query<T>(text, values));
}

/** The same, with pg's whole statement config (row mode, type parsers): a compute thread's text answers. */
export function queryWith<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  config: pg.QueryConfig,
): Promise<pg.QueryResult<T>> {
  if (!(db instanceof pg.Pool)) return db.query<T>(config);
  return onPoolClient(db, (client) => client.query<T>(config));
}

/**
 * Pools whose connections keep named prepared statements: PostgreSQL's (the embedded store's pg clients share
 * one PGlite session, where a second client's Parse of a name the first one prepared would fail).
 */
const preparing = new WeakSet<pg.Pool>();

/** Lets `preparedQuery` name its statements on this pool's connections (store/db.ts, for PostgreSQL). */
export function allowPreparedStatements(pool: pg.Pool): void {
  preparing.add(pool);
}

/** The texts of the names given so far: one name is one statement text, for good. */
const namedTexts = new Map<string, string>();

/**
 * `query` for a statement whose plan has no choice to make (an INSERT of the rows it is given, whatever the
 * values), run as the named prepared statement `name` on PostgreSQL: each connection parses and plans it once,
 * and then only binds and executes it (measured: 60-70 µs less database CPU per single-document insert). Only
 * such statements are named: a named statement switches to a generic plan after five executions when that plan
 * looks as cheap, and a read's generic plan with a bound scope cannot use the partial indexes of the API (their
 * WHERE holds the game, stage and collection as constants): reads go through planCachedQuery instead.
 * The names are fixed strings of the code, so the statements a connection keeps are bounded by construction.
 * Elsewhere (the embedded store, a client inside a transaction, a compute thread's stand-in) the statement runs
 * as `query` does.
 */
export function preparedQuery<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  name: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<T>> {
  if (!(db instanceof pg.Pool) || !preparing.has(db)) return query<T>(db, text, values);
  const known = namedTexts.get(name);
  if (known === undefined) namedTexts.set(name, text);
  else if (known !== text) throw new Error(`prepared statement ${name} names two texts`);
  return onPoolClient(db, async (client) => {
    try {
      return await client.query<T>({ name, text, values });
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      // 26000: the session lost it (DEALLOCATE, a pooler's DISCARD ALL): pg parses it again next time.
      // 42P05: the session holds the name from elsewhere (a pooler that shares server sessions): not ours.
      // Either way this run goes unnamed, so the write is never refused for it.
      if (code === '26000') forgetPrepared(client, name);
      else if (code !== '42P05') throw e;
      return client.query<T>(text, values);
    }
  });
}

/**
 * Pools whose clients share one session (the embedded store): planCachedQuery names statements there too, as a
 * name is its text's hash, so a name the session already holds is the same statement.
 */
const sharingSession = new WeakSet<pg.Pool>();

/** Lets `planCachedQuery` name its statements on this pool (store/db.ts, for the embedded store). */
export function allowCachedPlansOnSharedSession(pool: pg.Pool): void {
  sharingSession.add(pool);
}

/** Texts seen recently (by name), so that only a text that comes back is prepared. */
const seenTexts = new Map<string, true>();
const MAX_SEEN = 2000;
/** Cached-plan statements each connection keeps at most; past this its least recently used is deallocated. */
export const MAX_CACHED_PLANS = 100;
/** Per connection: the cached-plan names it holds, least recently used first. */
const cachedPlans = new WeakMap<pg.PoolClient, Map<string, true>>();

/**
 * `query` for a read whose plan does not depend on its bound values (store/document-reads.ts decides: the
 * scope is written as literals, and the statement has one index, or none, to choose): on PostgreSQL, a text
 * run a second time becomes a named prepared statement of the connection, so PostgreSQL parses it once and,
 * after its first five runs, reuses a generic plan when that plan costs no more than the custom ones (planning
 * was about three quarters of the database's work for an indexed equality, measured with pgbench). Names come
 * from the text's hash; each connection keeps at most MAX_CACHED_PLANS and deallocates the least recently used.
 * Elsewhere (the embedded store, a transaction, a compute thread's stand-in) it runs as `query` does.
 */
export function planCachedQuery<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<T>> {
  if (!(db instanceof pg.Pool) || !(preparing.has(db) || sharingSession.has(db)))
    return query<T>(db, text, values);
  const name = `pb_r_${hash('sha1', text)}`;
  if (!seenTexts.delete(name)) {
    seenTexts.set(name, true);
    if (seenTexts.size > MAX_SEEN) seenTexts.delete(seenTexts.keys().next().value!);
    return query<T>(db, text, values);
  }
  seenTexts.set(name, true);
  return onPoolClient(db, async (client) => {
    let held = cachedPlans.get(client);
    if (held === undefined) {
      held = new Map();
      cachedPlans.set(client, held);
    }
    if (!held.delete(name) && held.size >= MAX_CACHED_PLANS) {
      const oldest = held.keys().next().value!;
      held.delete(oldest);
      await client.query(`DEALLOCATE ${oldest}`).catch((e: { code?: string }) => {
        if (e.code !== '26000') throw e;
      });
      forgetPrepared(client, oldest);
    }
    held.set(name, true);
    try {
      return await client.query<T>({ name, text, values });
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      // The session holds the name already (another client of a shared session prepared it): a name is its
      // text's hash, so it is this statement, and the client runs it without parsing it.
      if (code === '42P05') {
        markPrepared(client, name, text);
        return client.query<T>({ name, text, values }).catch((again: { code?: unknown }) => {
          if (again.code !== '26000') throw again;
          forgetPrepared(client, name);
          return client.query<T>(text, values);
        });
      }
      // As in preparedQuery: a statement the session lost is parsed again next time; this run goes unnamed.
      if (code !== '26000') throw e;
      forgetPrepared(client, name);
      return client.query<T>(text, values);
    }
  });
}

/** Tells pg that this connection's session holds `name` for `text`, so that it binds it without a Parse. */
function markPrepared(client: pg.PoolClient, name: string, text: string): void {
  const parsed = parsedStatements(client);
  if (parsed) parsed[name] = text;
}

/** pg's record, per connection, of the statement names it has parsed (name → text). */
function parsedStatements(client: pg.PoolClient): Record<string, unknown> | undefined {
  return (client as unknown as { connection?: { parsedStatements?: Record<string, unknown> } }).connection
    ?.parsedStatements;
}

/** pg remembers per connection which names it has parsed; a name the server lost must be parsed again. */
function forgetPrepared(client: pg.PoolClient, name: string): void {
  const parsed = parsedStatements(client);
  if (parsed) delete parsed[name];
}

async function onPoolClient<R>(pool: pg.Pool, run: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    return await run(client);
  } catch (e) {
    // 57P01 and its kin carry a SQLSTATE but leave no connection behind: that client is destroyed too.
    if (!isSqlError(e) || isConnectionFailure(e)) failure = e as Error;
    throw e;
  } finally {
    client.release(failure);
  }
}
