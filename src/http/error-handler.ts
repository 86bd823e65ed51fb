// The one error handler: every failure leaves as {message, code, requestId[, details]} with the right status.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errors, isPlaybaseError, type PlaybaseError } from '../errors.js';
import { isConnectionFailure } from '../store/connection-failures.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function fieldOf(issue: ValidationIssue, context: string | undefined): string {
  // instancePath is a JSON pointer: unescape each segment (~1 → /, ~0 → ~) before joining with dots.
  const path = (issue.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
  const missing = issue.keyword === 'required' ? String(issue.params?.missingProperty ?? '') : '';
  const extra =
    issue.keyword === 'additionalProperties' ? String(issue.params?.additionalProperty ?? '') : '';
  const leaf = [path, missing || extra].filter(Boolean).join('.');
  return [context, leaf].filter(Boolean).join('.');
}

/** Turns Fastify's schema errors into VALIDATION_FAILED with one detail per field. */
function fromValidation(error: FastifyError): PlaybaseError {
  const issues = (error.validation ?? []) as ValidationIssue[];
  const context = error.validationContext;
  const details = issues.map((issue) => ({
    field: fieldOf(issue, context),
    message:
      issue.keyword === 'additionalProperties' ? 'is not an allowed field' : (issue.message ?? 'is invalid'),
  }));
  const first = details[0];
  const message = first ? `Invalid ${first.field || context}: ${first.message}` : 'Invalid request';
  return errors.validation(message, details);
}

/** Maps Fastify's own errors (parsers, limits) onto the catalogue; undefined for anything unexpected. */
function fromFastify(error: FastifyError): PlaybaseError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson(error.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(Number((error as { limit?: number }).limit ?? 0) || 0);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(error.message.replace(/^Unsupported Media Type:?\s*/i, ''));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.badRequest('Content-Length does not match the body');
  }
  if (error instanceof SyntaxError || (error as { statusCode?: number }).statusCode === 400) {
    // secure-json-parse reports __proto__ / constructor poisoning as a SyntaxError-like 400.
    return errors.invalidJson(error.message);
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 413) return errors.bodyTooLarge(0);
  if (status === 415) return errors.unsupportedMediaType(error.message);
  return undefined;
}

/** Database failures a client can meet in normal operation; anything else stays an internal error. */
function fromDatabase(error: { code?: string }, timeoutMs: number): PlaybaseError | undefined {
  // 57014: statement_timeout cancelled the query.
  if (error.code === '57014') return errors.queryTimeout(Math.round(timeoutMs / 1000));
  // A database that is restarting, unreachable or that dropped the connection: not the request's fault.
  if (isConnectionFailure(error)) return errors.storeUnavailable();
  return undefined;
}

export function handleError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  statementTimeoutMs = 10_000,
): void {
  let known: PlaybaseError | undefined;
  if (isPlaybaseError(error)) known = error;
  else if (error.validation) known = fromValidation(error);
  else known = fromDatabase(error, statementTimeoutMs) ?? fromFastify(error);

  if (!known) {
    request.log.error({ err: error }, 'unexpected failure');
    known = errors.internal();
  } else if (known.code === 'NOT_READY') {
    // A state, not a fault: /readyz while starting or catching up, or a pool that stayed busy. Operators watch it
    // through /readyz and the pool metrics; it is not an error to page on.
    request.log.warn({ code: known.code }, known.message);
  } else if (known.status >= 500) {
    request.log.error({ err: error }, known.message);
  }
  if (known.headers) reply.headers(known.headers);
  const body: Record<string, unknown> = { message: known.message, code: known.code, requestId: request.id };
  if (known.details) body.details = known.details;
  reply.code(known.status).type('application/json; charset=utf-8').send(body);
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? request.url;
  handleError(errors.routeNotFound(request.method, path) as unknown as FastifyError, request, reply);
}
