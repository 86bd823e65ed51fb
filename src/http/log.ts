// Logger options: secrets (passwords, tokens, JWTs) never reach a log line, not even inside a logged URL.
import type { FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

const SECRET_QUERY = /([?&](?:X-SVCAccessToken|X-SVC-JWT|signature|secret|password)=)[^&#]*/gi;
// Runtime requests carry a credential's secret in the path: /rs/{credential}/{secret}/{RequestName}.
const RUNTIME_SECRET = /(\/rs\/[^/?#]*\/)[^/?#]*/;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]').replace(RUNTIME_SECRET, '$1[REDACTED]');
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
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
