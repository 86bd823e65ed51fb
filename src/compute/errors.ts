// Errors across the thread boundary. Structured clone keeps only an Error's message and name, so catalogue
// errors (status, code, details, headers) and PostgreSQL errors (SQLSTATE, constraint) travel as plain data
// and are rebuilt on the other side, where the error handler and the database-error translation expect them.

import { isPlaybaseError, PlaybaseError } from '../errors.js';
import { isConnectionFailure } from '../store/connection-failures.js';

export type SentError =
  | { kind: 'playbase'; status: number; code: string; message: string; details?: unknown; headers?: unknown }
  | { kind: 'pg'; message: string; code?: string; severity?: string; constraint?: string; detail?: string }
  | { kind: 'other'; message: string; name: string; stack?: string };

export function sendError(e: unknown): SentError {
  if (isPlaybaseError(e)) {
    return {
      kind: 'playbase',
      status: e.status,
      code: e.code,
      message: e.message,
      details: e.details,
      headers: e.headers,
    };
  }
  if (e instanceof AggregateError && isConnectionFailure(e)) {
    // pg reports a refused connection to a host of several addresses this way: keep the first lost one.
    return sendError(e.errors.find(isConnectionFailure));
  }
  if (typeof e === 'object' && e !== null) {
    const { message, code, severity, constraint, detail } = e as Record<string, unknown>;
    if (typeof code === 'string') {
      return {
        kind: 'pg',
        message: String(message ?? ''),
        code,
        severity: typeof severity === 'string' ? severity : undefined,
        constraint: typeof constraint === 'string' ? constraint : undefined,
        detail: typeof detail === 'string' ? detail : undefined,
      };
    }
    if (isConnectionFailure(e)) return { kind: 'pg', message: String(message ?? '') };
  }
  const error = e instanceof Error ? e : new Error(String(e));
  return { kind: 'other', message: error.message, name: error.name, stack: error.stack };
}

export function receiveError(sent: SentError): Error {
  switch (sent.kind) {
    case 'playbase':
      return new PlaybaseError(
        sent.status,
        sent.code,
        sent.message,
        sent.details as PlaybaseError['details'],
        sent.headers as PlaybaseError['headers'],
      );
    case 'pg': {
      const { kind: _, message, ...fields } = sent;
      const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      return Object.assign(new Error(message), defined);
    }
    default: {
      const error = new Error(sent.message);
      error.name = sent.name;
      if (sent.stack !== undefined) error.stack = sent.stack;
      return error;
    }
  }
}
