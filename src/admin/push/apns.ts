// Sends one alert through Apple Push Notification service: HTTP/2, ES256 provider token, readable summary.
import { createHash, createPrivateKey, randomUUID } from 'node:crypto';
import { connect, type IncomingHttpHeaders } from 'node:http2';
import { SignJWT } from 'jose';
import {
  clip,
  describeFailure,
  isObject,
  type PushPayload,
  type PushSummary,
  type PushTokenCache,
  sharedPushTokenCache,
} from '../../config/push/push-types.js';

// APNs refuses tokens older than 60 minutes and refreshes more often than every 20: renew at 50.
const PROVIDER_TOKEN_LIFETIME_MS = 50 * 60_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApnsSendOptions {
  baseUrl: string;
  /** The .p8 token key from Apple: PKCS#8 PEM, EC P-256. */
  keyPem: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id (apns-topic). */
  topic: string;
  deviceToken: string;
  payload: PushPayload;
  clock: () => number;
  /** Names the summary "Apple development" / "Apple production". */
  environment?: 'development' | 'production';
  ca?: string | Buffer | undefined;
  timeoutMs?: number | undefined;
  tokenCache?: PushTokenCache | undefined;
}

interface Http2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface ApnsRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The request as shown in the summary: everything but the provider token. */
  parts: string[];
}

/** Sends the alert; every failure (unusable key, network, timeout, APNs refusal) comes back as an error summary. */
export async function sendApns(options: ApnsSendOptions): Promise<PushSummary> {
  const title = options.environment ? `Apple ${options.environment}` : 'Apple';
  const request = buildApnsRequest(options);
  const cache = options.tokenCache ?? sharedPushTokenCache;
  const cacheKey = providerTokenKey(options);
  let answer: Http2Answer;
  try {
    const token = await getProviderToken(options, cache, cacheKey);
    const headers = {
      ':method': 'POST',
      ':path': request.path,
      ...request.headers,
      authorization: `bearer ${token}`,
    };
    answer = await postHttp2(options.baseUrl, headers, request.body, {
      ca: options.ca,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  } catch (err) {
    return {
      title,
      error: true,
      outgoingMessageParts: request.parts,
      resultParts: [`error: ${describeFailure(err)}`],
    };
  }
  // A refused token (expired, revoked key) must not be offered again for the rest of its cache life.
  if (answer.status === 403) cache.delete(cacheKey);
  const resultParts = describeApnsAnswer(answer);
  return { title, error: answer.status !== 200, outgoingMessageParts: request.parts, resultParts };
}

function buildApnsRequest(options: ApnsSendOptions): ApnsRequest {
  const path = `/3/device/${encodeURIComponent(options.deviceToken)}`;
  const messageId = options.payload.messageId;
  const headers = {
    'apns-topic': options.topic,
    'apns-push-type': 'alert',
    // APNs accepts only a UUID here; another messageId is replaced by a fresh one, which the summary shows.
    'apns-id': messageId && UUID.test(messageId) ? messageId : randomUUID(),
    'apns-priority': '10',
    'content-type': 'application/json',
  };
  const body = JSON.stringify(buildApnsBody(options.payload));
  const parts = [
    `POST ${options.baseUrl.replace(/\/+$/, '')}${path}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `authorization: bearer <ES256 provider token, kid ${options.keyId}, iss ${options.teamId}>`,
    `body: ${body}`,
  ];
  return { path, headers, body, parts };
}

/** The APNs JSON payload: the alert under `aps`, custom keys beside it; a custom `aps` adds badge, sound... */
export function buildApnsBody(payload: PushPayload): Record<string, unknown> {
  const alert = definedOnly({ title: payload.title, subtitle: payload.subtitle, body: payload.summary });
  const custom = payload.customJson ?? {};
  const customAps = isObject(custom.aps) ? custom.aps : {};
  return { ...custom, aps: { ...customAps, alert } };
}

function describeApnsAnswer(answer: Http2Answer): string[] {
  const parts = [`status: ${answer.status}`];
  for (const name of ['apns-id', 'apns-unique-id']) {
    const value = answer.headers[name];
    if (typeof value === 'string') parts.push(`${name}: ${value}`);
  }
  if (answer.body.trim() === '') return parts;
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (isObject(parsed)) {
      if (parsed.reason !== undefined) parts.push(`reason: ${String(parsed.reason)}`);
      if (parsed.timestamp !== undefined) parts.push(`timestamp: ${String(parsed.timestamp)}`);
      return parts;
    }
  } catch {
    // not JSON: shown as is below
  }
  parts.push(`body: ${clip(answer.body)}`);
  return parts;
}

// Keyed by the key material too, so a rotated key never reuses the old key's token.
function providerTokenKey(options: ApnsSendOptions): string {
  const keyHash = createHash('sha256').update(options.keyPem).digest('base64url');
  return `apns|${options.teamId}|${options.keyId}|${keyHash}`;
}

async function getProviderToken(
  options: ApnsSendOptions,
  cache: PushTokenCache,
  cacheKey: string,
): Promise<string> {
  const now = options.clock();
  const cached = cache.get(cacheKey);
  if (cached && now < cached.refreshAt) return cached.token;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(options.keyPem);
  } catch {
    throw new Error('the APNs token key is not a readable PKCS#8 PEM key');
  }
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: options.keyId })
    .setIssuer(options.teamId)
    .setIssuedAt(Math.floor(now / 1000))
    .sign(key);
  cache.set(cacheKey, { token, refreshAt: now + PROVIDER_TOKEN_LIFETIME_MS });
  return token;
}

/** One HTTP/2 request on its own session, closed afterwards; rejects on network failure or timeout. */
function postHttp2(
  baseUrl: string,
  headers: Record<string, string>,
  body: string,
  options: { ca?: string | Buffer | undefined; timeoutMs: number },
): Promise<Http2Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(baseUrl);
    if (target.protocol !== 'https:') {
      reject(new Error(`refusing a non-https URL: ${target.origin}`));
      return;
    }
    const session = connect(target.origin, options.ca ? { ca: options.ca } : {});
    let settled = false;
    const settle = (err: Error | undefined, answer?: Http2Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      if (err || !answer) reject(err ?? new Error('stream closed before the answer'));
      else resolve(answer);
    };
    const timer = setTimeout(
      () => settle(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    session.on('error', (err) => settle(err));
    const stream = session.request(headers);
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('response', (h) => {
      responseHeaders = h;
    });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) settle(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
      else chunks.push(chunk);
    });
    stream.on('end', () => {
      const status = Number(responseHeaders[':status'] ?? 0);
      settle(undefined, { status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') });
    });
    stream.on('error', (err) => settle(err));
    stream.on('close', () => settle(undefined));
    stream.end(body);
  });
}

function definedOnly(record: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((e): e is [string, string] => e[1] !== undefined));
}
