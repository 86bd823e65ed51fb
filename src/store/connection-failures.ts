// Lost database connections: how pg reports them, and the guard that keeps one from ending the process.
import type pg from 'pg';

// SQLSTATEs of a connection that is gone or cannot be had: class 08 (connection exception), 57P01 admin
// shutdown (pg_terminate_backend, a restart), 57P02 crash shutdown, 57P03 cannot connect now (starting up,
// shutting down), 53300 too many connections. None is caused by the request: the store is unavailable.
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

// Socket errors of the TCP connection to the database (or of a lookup of its host name).
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

// pg and pg-pool raise these without a code (pg 8, pg-pool 3): the only way to know them is their text.
const DRIVER_MESSAGES = [
  'Connection terminated', // also "... unexpectedly" and "... due to connection timeout" (checkout)
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect', // pool checkout waited longer than connectionTimeoutMillis
];

/** True when `e` says the database cannot be reached or dropped the connection, not that a statement failed. */
export function isConnectionFailure(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') && code.length === 5) return true;
    if (CONNECTION_SQLSTATES.has(code) || SOCKET_CODES.has(code)) return true;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m))) return true;
  // node-postgres reports a refused connection to a host with several addresses as an AggregateError.
  if (e instanceof AggregateError) return e.errors.some(isConnectionFailure);
  return false;
}

function ignoreLostConnection(): void {
  // The statement running on the client (if any) is rejected with the same error, and the client, no longer
  // queryable, is destroyed when it goes back to the pool: there is nothing left to do here.
}

/**
 * Gives every client of `pool` an 'error' listener of its own for its whole life. pg-pool listens on a client
 * only while it is idle in the pool; a checked-out client (a transaction, a cursor between batches, any
 * `pool.connect()`) whose backend is terminated emits 'error' with no listener, which ends the process. One
 * listener added when the pool makes the client covers every checkout, present and future, in one place.
 */
export function guardPoolClients(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.on('error', ignoreLostConnection);
  });
  // An idle client losing its connection: the pool has already dropped it and makes another when needed.
  pool.on('error', () => {});
}
