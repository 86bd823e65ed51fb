// The one error catalogue: every error the API can answer has a stable code, a status and a description here.
// Codes are SCREAMING_SNAKE and never renamed: clients match on them.

export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

export class PlaybaseError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Retry-After, WWW-Authenticate...). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: ErrorDetail[],
    headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'PlaybaseError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export interface CatalogueEntry {
  code: string;
  status: number;
  description: string;
}

/** A catalogue error's factory; `entry` is its line of the catalogue (src/error-catalogue.ts lists them all). */
export type CatalogueFactory<A extends unknown[]> = ((...args: A) => PlaybaseError) & {
  readonly entry: CatalogueEntry;
};

/**
 * Defines a catalogue entry and returns its factory. Modules define their own errors with this in their own
 * `errors.ts` (auth/errors.ts, nosql/errors.ts...) and export their entries as one list, which
 * src/error-catalogue.ts joins: defining has no side effect, so the catalogue is known without loading a room.
 */
export function def<A extends unknown[]>(
  code: string,
  status: number,
  description: string,
  message: (...args: A) => string,
): CatalogueFactory<A> {
  const entry = { code, status, description };
  return Object.assign((...args: A) => new PlaybaseError(status, code, message(...args)), { entry });
}

/** Like def, for an error that carries one detail per offending field (VALIDATION_FAILED, CONFIG_INVALID). */
export function defWithDetails(
  code: string,
  status: number,
  description: string,
): CatalogueFactory<[message: string, details: ErrorDetail[]]> {
  const entry = { code, status, description };
  return Object.assign(
    (message: string, details: ErrorDetail[]) => new PlaybaseError(status, code, message, details),
    { entry },
  );
}

type Entries = { readonly entry: CatalogueEntry } | Record<string, unknown>;

/**
 * The catalogue entries of factories made by def, or of the factories among an object's values (a module's
 * `xxxErrors` object; plain helpers in it are skipped), in order: how a module exports its list.
 */
export function entriesOf(...parts: Entries[]): CatalogueEntry[] {
  return parts.flatMap((part) =>
    hasEntry(part) ? [part.entry] : Object.values(part).flatMap((v) => (hasEntry(v) ? [v.entry] : [])),
  );
}

function hasEntry(value: unknown): value is { readonly entry: CatalogueEntry } {
  return typeof value === 'function' && 'entry' in value;
}

// A restart of PostgreSQL or a failover takes a few seconds; sooner retries would meet the same refusal.
const STORE_RETRY_AFTER_S = 2;

export const errors = {
  // --- HTTP layer (foundation) ---
  invalidJson: def(
    'INVALID_JSON',
    400,
    'The request body is not valid JSON.',
    (why: string) => `Malformed JSON body: ${why}`,
  ),
  validation: defWithDetails(
    'VALIDATION_FAILED',
    400,
    'The request does not match the schema; `details` names each field and what is wrong.',
  ),
  badRequest: def('BAD_REQUEST', 400, 'The request is not acceptable as sent.', (message: string) => message),
  routeNotFound: def(
    'ROUTE_NOT_FOUND',
    404,
    'No route matches the method and path.',
    (method: string, url: string) => `Route ${method} ${url} not found`,
  ),
  methodNotAllowed: def(
    'METHOD_NOT_ALLOWED',
    405,
    'The method is not allowed on this path.',
    (m: string) => `Method ${m} not allowed`,
  ),
  requestTimeout: def(
    'REQUEST_TIMEOUT',
    408,
    'The request (headers and body) did not arrive within the request timeout; the connection is closed.',
    (headersMs: number, requestMs: number) =>
      `The request did not arrive in time (headers within ${headersMs} ms, headers and body within ${requestMs} ms)`,
  ),
  uriTooLong: def(
    'URI_TOO_LONG',
    414,
    'A path parameter is longer than the router accepts (100 characters).',
    () => 'A path parameter is longer than 100 characters',
  ),
  expectationFailed: def(
    'EXPECTATION_FAILED',
    417,
    'The request has an `Expect` header other than `100-continue`, which the server cannot meet.',
    (expect: string) => `Cannot meet the expectation "${expect.slice(0, 100)}"`,
  ),
  headersTooLarge: def(
    'HEADERS_TOO_LARGE',
    431,
    "The request's headers are larger than the server accepts (16 KB); the connection is closed.",
    () => 'Request headers are too large',
  ),
  bodyTooLarge: def(
    'BODY_TOO_LARGE',
    413,
    'The request body is larger than the limit of this endpoint.',
    (limit: number) => `Request body is larger than ${limit} bytes`,
  ),
  unsupportedMediaType: def(
    'UNSUPPORTED_MEDIA_TYPE',
    415,
    'The Content-Type is not accepted (send application/json).',
    (type: string) => `Unsupported Content-Type: ${type}`,
  ),
  internal: def(
    'INTERNAL_ERROR',
    500,
    'An unexpected failure; the cause is logged under the request id.',
    () => 'Internal server error',
  ),
  notReady: def(
    'NOT_READY',
    503,
    'The server is starting or its store does not answer.',
    (why: string) => why,
  ),
  /** NOT_READY for a store that dropped or refused the connection: the client may retry after a pause. */
  storeUnavailable: () =>
    new PlaybaseError(503, 'NOT_READY', 'The store does not answer', undefined, {
      'Retry-After': String(STORE_RETRY_AFTER_S),
    }),
  shuttingDown: def('SHUTTING_DOWN', 503, 'The server is shutting down.', () => 'Server is shutting down'),
  queryTimeout: def(
    'QUERY_TIMEOUT',
    503,
    'The database statement ran longer than the statement timeout and was cancelled.',
    (seconds: number) => `Query cancelled after ${seconds} s`,
  ),
  roleNotServed: def(
    'ROLE_NOT_SERVED',
    404,
    'This process does not run the role that serves this path.',
    (role: string) => `This server does not run the ${role} role`,
  ),
};

/** The foundation's entries of the catalogue (storeUnavailable is NOT_READY with a Retry-After). */
export const foundationCatalogue = entriesOf(errors);

export function isPlaybaseError(e: unknown): e is PlaybaseError {
  return e instanceof PlaybaseError;
}
