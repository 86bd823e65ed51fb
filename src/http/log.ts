// Logger options: secrets (passwords, tokens, JWTs) never reach a log line, not even inside a logged URL.
import type { FastifyRequest } from 'fastify';
import { type Logger, type LoggerOptions, pino } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { LogFormat } from '../settings.js';

// A query parameter is a credential when its name, decoded as the query parser decodes it (`+` a space, %XX its
// byte), lower-cased and without spaces, `_` and `-`, holds one of these: `X%2DSVCAccessToken` is matched too.
const SECRET_NAME = /token|secret|passw(?:or)?d|jwt|signature|credential|authori[sz]ation/;
// Runtime requests carry a credential's secret in the path: /rs/{credential}/{secret}/{RequestName}.
const RUNTIME_SECRET = /(\/rs\/[^/?#]*\/)[^/?#]*/;
const PERCENT = /%([0-9a-f]{2})/gi;
// Letters, digits and -._~ only: decoding them cannot move a segment boundary (%2F stays as it is).
const PERCENT_UNRESERVED = /%(2[dDeE]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF]|7[eE])/g;

const byte = (_: string, hex: string) => String.fromCharCode(Number.parseInt(hex, 16));

/** Decodes a query name as often as it changes (bounded): a doubly encoded name is matched as well. */
function normalizeName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  for (let i = 0; i < 4; i++) {
    const next = name.replace(PERCENT, byte);
    if (next === name) break;
    name = next;
  }
  return name.toLowerCase().replace(/[\s_-]/g, '');
}

function isSecretParameter(rawName: string): boolean {
  return SECRET_NAME.test(normalizeName(rawName));
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && isSecretParameter(name) ? `${name}=[REDACTED]` : part;
    })
    .join('&');
}

/** The URL for a log line: credential query values and the runtime path's secret replaced by [REDACTED]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(PERCENT_UNRESERVED, byte);
  const redactedPath = path.replace(RUNTIME_SECRET, '$1[REDACTED]');
  return q < 0 ? redactedPath : `${redactedPath}?${redactQuery(url.slice(q + 1))}`;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["proxy-authorization"]',
        'req.headers["x-svcaccesstoken"]',
        'req.headers["x-svc-jwt"]',
        'req.headers.cookie',
        '*.password',
        '*.secret',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.ip,
        };
      },
    },
  };
}

/**
 * The process's logger: JSON lines, or readable lines through pino-pretty. Redaction and the serializers run in
 * pino before either format sees a line, so both print the same redacted content. Readable lines are written
 * synchronously: they are for a person at a terminal, and none may be lost when the process exits.
 */
export function createLogger(level: string, format: LogFormat, destination?: NodeJS.WritableStream): Logger {
  const options = loggerOptions(level);
  if (format === 'json') return destination ? pino(options, destination) : pino(options);
  const pretty = PinoPretty({
    destination: destination ?? 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    // One line per entry: a request's two entries stay two lines instead of a dozen.
    singleLine: true,
    ...(destination ? { colorize: false } : {}),
  });
  return pino(options, pretty);
}
