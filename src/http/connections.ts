// Connection defenses: header, request, keep-alive and inactivity timeouts, and the answers Node's HTTP layer and
// Fastify's router give before a route runs (408, 431, 414, 400), in the same error body as every other error.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type PlaybaseError } from '../errors.js';
import type { Settings } from '../settings.js';
import { handleError } from './error-handler.js';
import { generateRequestId } from './request-id.js';

/** The id Fastify gave each request, for an error Node raises on its socket before the route answers. */
const requestIds = new WeakMap<IncomingMessage, string>();

export function rememberRequestId(request: FastifyRequest): void {
  requestIds.set(request.raw, request.id);
}

/** Requests whose route bounds their receiving itself (imports): Node's request timeout lets them go on. */
const ownReceivingBound = new WeakSet<IncomingMessage>();

/**
 * Exempts the request from PLAYBASE_HTTP_REQUEST_TIMEOUT_MS; the caller must bound its receiving itself. Node
 * reports a request past its timeout once (it then stops watching it), as a 'clientError' that is ignored here.
 */
export function boundReceivingByRoute(request: FastifyRequest): void {
  ownReceivingBound.add(request.raw);
}

/** Node's own timers: the headers timeout and how often expired requests are looked for (default 30 s). */
export function nodeServerOptions(http: Settings['http']): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
  requireHostHeader: boolean;
} {
  return {
    // Node would answer a missing Host with an empty 400; requireHost (an onRequest hook) answers in the error body.
    requireHostHeader: false,
    headersTimeout: http.headersTimeoutMs,
    requestTimeout: http.requestTimeoutMs,
    // Checked often enough that a timeout ends within about a second of its due time, not up to 30 s later.
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(http.headersTimeoutMs / 4))),
  };
}

function clientErrorOf(err: NodeJS.ErrnoException, http: Settings['http']): PlaybaseError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return errors.requestTimeout(http.headersTimeoutMs, http.requestTimeoutMs);
  if (err.code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  if (err.code === 'HPE_INVALID_CONTENT_LENGTH' || err.code === 'HPE_UNEXPECTED_CONTENT_LENGTH')
    return errors.badRequest('The Content-Length header is not valid');
  return errors.badRequest('The request is not valid HTTP/1.1');
}

/**
 * Node's 'clientError': a request that timed out, had too large headers or was not valid HTTP. Answered, when no
 * answer has started on the socket, with the error body and `Connection: close`; then the socket is closed.
 */
export function clientErrorHandler(http: Settings['http']) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && inFlight?.req && ownReceivingBound.has(inFlight.req))
      return;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const known = clientErrorOf(err, http);
    const requestId = (inFlight?.req && requestIds.get(inFlight.req)) || randomUUID();
    const body = JSON.stringify({ message: known.message, code: known.code, requestId });
    const head = [
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ];
    // end() flushes the answer before closing; a client that reads nothing is cut a second later.
    const cut = setTimeout(() => socket.destroy(), 1000);
    cut.unref();
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => {
      clearTimeout(cut);
      socket.destroy();
    });
  };
}

/** HTTP/1.1 requires a Host header (RFC 9112, 3.2): refused as Node would, but in the error body. */
export function requireHost(request: FastifyRequest): void {
  const raw = request.raw;
  if (raw.httpVersion === '1.1' && raw.headers.host === undefined)
    throw errors.badRequest('An HTTP/1.1 request needs a Host header');
}

/**
 * An `Expect` other than `100-continue`: Node would answer an empty 417 itself; this answers in the error body.
 * (`100-continue` is left to Node, which answers "100 Continue" and goes on.)
 */
export function answerUnmetExpectations(server: Server): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = generateRequestId(req);
    const known = errors.expectationFailed(String(req.headers.expect ?? ''));
    const body = JSON.stringify({ message: known.message, code: known.code, requestId });
    res.writeHead(known.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    res.end(body);
  });
}

/** Fastify's router errors (a path parameter longer than maxParamLength, a malformed URL) as catalogue errors. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  let known: PlaybaseError | FastifyError = error;
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') known = errors.uriTooLong();
  else if (error.code === 'FST_ERR_BAD_URL')
    known = errors.badRequest('A path segment is not valid URL encoding');
  handleError(known as FastifyError, request, reply);
}

/**
 * The inactivity (connection) timeout. An answer the server is still working on (an export, an index build) is
 * never cut; a connection that is idle, or whose client stops reading its answer, is.
 */
export function cutSilentConnections(server: Server): void {
  server.on('timeout', (socket: Socket) => {
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    const working = inFlight && !inFlight.writableEnded && socket.writableLength === 0;
    if (!working) socket.destroy();
  });
}
