// Translates PostgreSQL errors of nosql statements into catalogue errors (409, 400, 503), others pass through.
import { errors, isPlaybaseError } from '../errors.js';
import { isConnectionFailure } from '../store/connection-failures.js';
import { indexNameOf } from '../store/indexes.js';
import { nosqlErrors } from './errors.js';
import type { Db, Scope } from './scope.js';

interface PgError {
  code?: string;
  message?: string;
  constraint?: string;
}

export const MAX_NESTING = 100;

function pgError(e: unknown): PgError | undefined {
  if (typeof e !== 'object' || e === null || isPlaybaseError(e)) return undefined;
  const code = (e as PgError).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? (e as PgError) : undefined;
}

/**
 * The catalogue error for a database error caused by the request, else the error itself. `db` must be usable
 * (not a client inside an aborted transaction): call this after the transaction has rolled back.
 */
export async function translateDbError(
  e: unknown,
  db: Db,
  scope: Scope | undefined,
  timeoutMs: number,
): Promise<unknown> {
  if (!isPlaybaseError(e) && isConnectionFailure(e)) return errors.storeUnavailable();
  const pe = pgError(e);
  if (!pe) return e;
  const message = pe.message ?? '';
  switch (pe.code) {
    case '23505':
      return nosqlErrors.duplicateKey(
        scope ? await indexNameOf(db, scope, pe.constraint) : (pe.constraint ?? '_id_'),
      );
    case '57014':
      return errors.queryTimeout(timeoutMs / 1000);
    case '54001':
      return nosqlErrors.tooDeep(MAX_NESTING);
    case '54000':
      return message.includes('index row')
        ? nosqlErrors.indexKeyTooLarge()
        : nosqlErrors.queryRejected(message);
    case '22023':
      if (message.startsWith('pb_unique_array'))
        return nosqlErrors.uniqueArray(message.replace(/^pb_unique_array:\s*/, ''));
      return nosqlErrors.queryRejected(message);
  }
  // Class 22 (data exception): a value the database cannot take, caused by the request, never a server fault.
  if (pe.code?.startsWith('22')) return nosqlErrors.queryRejected(message);
  return e;
}

/** Runs fn and rethrows its database errors translated. */
export async function withDbErrors<T>(
  db: Db,
  scope: Scope | undefined,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw await translateDbError(e, db, scope, timeoutMs);
  }
}
