// Sends one notification through Firebase Cloud Messaging HTTP v1, with an OAuth token from the service account.
import { createHash, createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import {
  clip,
  describeFailure,
  isObject,
  type PushPayload,
  type PushSummary,
  type PushTokenCache,
  type ServiceAccount,
  sharedPushTokenCache,
} from '../../config/push/push-types.js';
import { type HttpsAnswer, postHttps } from './https-post.js';

export type { ServiceAccount };

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const ASSERTION_LIFETIME_S = 3600;
// Renew an access token this long before it expires, so a send never races its expiry.
const ACCESS_TOKEN_MARGIN_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 10_000;

export interface FcmSendOptions {
  baseUrl: string;
  tokenUrl: string;
  serviceAccount: ServiceAccount;
  deviceToken: string;
  payload: PushPayload;
  clock: () => number;
  ca?: string | Buffer | undefined;
  timeoutMs?: number | undefined;
  tokenCache?: PushTokenCache | undefined;
}

/** The token endpoint said no: its exchange is what the summary reports. */
class TokenRefused extends Error {
  constructor(readonly answer: HttpsAnswer) {
    super(`token endpoint answered ${answer.status}`);
  }
}

/** Sends the notification; every failure (token, network, timeout, FCM refusal) comes back as an error summary. */
export async function sendFcm(options: FcmSendOptions): Promise<PushSummary> {
  const account = options.serviceAccount;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
  const body = JSON.stringify({ message: buildFcmMessage(options.deviceToken, options.payload) });
  const outgoingMessageParts = [
    `POST ${url}`,
    `authorization: Bearer <OAuth access token for ${account.client_email}>`,
    `body: ${body}`,
  ];
  const cache = options.tokenCache ?? sharedPushTokenCache;
  const cacheKey = accessTokenKey(options);
  const http = { ca: options.ca, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  let answer: HttpsAnswer;
  try {
    const token = await getAccessToken(options, cache, cacheKey);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' };
    answer = await postHttps(url, headers, body, http);
  } catch (err) {
    if (err instanceof TokenRefused) return describeTokenRefusal(options, err.answer);
    return {
      title: 'Google',
      error: true,
      outgoingMessageParts,
      resultParts: [`error: ${describeFailure(err)}`],
    };
  }
  // A refused access token (revoked, key deleted) must not be offered again.
  if (answer.status === 401) cache.delete(cacheKey);
  return {
    title: 'Google',
    error: answer.status !== 200,
    outgoingMessageParts,
    resultParts: describeFcmAnswer(answer),
  };
}

/** The v1 message: FCM data values must be strings, so non-string custom values travel as JSON text. */
function buildFcmMessage(deviceToken: string, payload: PushPayload): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.customJson ?? {})) {
    data[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  if (payload.messageId !== undefined) data.messageId = payload.messageId;
  const notification: Record<string, string> = {};
  if (payload.title !== undefined) notification.title = payload.title;
  if (payload.summary !== undefined) notification.body = payload.summary;
  return {
    token: deviceToken,
    ...(Object.keys(notification).length > 0 ? { notification } : {}),
    ...(Object.keys(data).length > 0 ? { data } : {}),
  };
}

function describeFcmAnswer(answer: HttpsAnswer): string[] {
  const parts = [`status: ${answer.status}`];
  const parsed = parseJson(answer.body);
  if (isObject(parsed) && typeof parsed.name === 'string') parts.push(`name: ${parsed.name}`);
  else if (isObject(parsed) && isObject(parsed.error)) parts.push(...describeGoogleError(parsed.error));
  else if (answer.body.trim() !== '') parts.push(`body: ${clip(answer.body)}`);
  return parts;
}

// Google's error body: {code, message, status, details: [{errorCode} | {fieldViolations: [...]}, ...]}.
function describeGoogleError(error: Record<string, unknown>): string[] {
  const parts = [`error: ${String(error.status ?? error.code)}: ${String(error.message ?? '')}`];
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    if (!isObject(detail)) continue;
    if (detail.errorCode !== undefined) parts.push(`errorCode: ${String(detail.errorCode)}`);
    for (const violation of Array.isArray(detail.fieldViolations) ? detail.fieldViolations : []) {
      if (isObject(violation))
        parts.push(`field ${String(violation.field)}: ${String(violation.description)}`);
    }
  }
  return parts;
}

function describeTokenRefusal(options: FcmSendOptions, answer: HttpsAnswer): PushSummary {
  const parsed = parseJson(answer.body);
  const resultParts = [`token status: ${answer.status}`];
  if (isObject(parsed) && parsed.error !== undefined) {
    resultParts.push(`error: ${String(parsed.error)}`);
    if (parsed.error_description !== undefined)
      resultParts.push(`error_description: ${String(parsed.error_description)}`);
  } else if (answer.body.trim() !== '') resultParts.push(`body: ${clip(answer.body)}`);
  const outgoingMessageParts = [
    `POST ${options.tokenUrl}`,
    `grant_type: ${JWT_BEARER_GRANT}`,
    `assertion: <RS256 JWT, iss ${options.serviceAccount.client_email}, scope ${FCM_SCOPE}, aud ${options.tokenUrl}>`,
  ];
  return { title: 'Google', error: true, outgoingMessageParts, resultParts };
}

// Keyed by the key material and token URL too, so a rotated key or a new endpoint never reuses a token.
function accessTokenKey(options: FcmSendOptions): string {
  const account = options.serviceAccount;
  const keyHash = createHash('sha256').update(account.private_key).digest('base64url');
  return `fcm|${options.tokenUrl}|${account.client_email}|${keyHash}`;
}

async function getAccessToken(
  options: FcmSendOptions,
  cache: PushTokenCache,
  cacheKey: string,
): Promise<string> {
  const now = options.clock();
  const cached = cache.get(cacheKey);
  if (cached && now < cached.refreshAt) return cached.token;
  const assertion = await signAssertion(options, Math.floor(now / 1000));
  const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString();
  const answer = await postHttps(
    options.tokenUrl,
    { 'content-type': 'application/x-www-form-urlencoded' },
    form,
    {
      ca: options.ca,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    },
  );
  const parsed = parseJson(answer.body);
  if (answer.status !== 200 || !isObject(parsed) || typeof parsed.access_token !== 'string') {
    throw new TokenRefused(answer);
  }
  const lifetimeMs =
    typeof parsed.expires_in === 'number' ? parsed.expires_in * 1000 : ASSERTION_LIFETIME_S * 1000;
  const margin = Math.min(ACCESS_TOKEN_MARGIN_MS, lifetimeMs / 2);
  cache.set(cacheKey, { token: parsed.access_token, refreshAt: now + lifetimeMs - margin });
  return parsed.access_token;
}

async function signAssertion(options: FcmSendOptions, iat: number): Promise<string> {
  const account = options.serviceAccount;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(account.private_key);
  } catch {
    throw new Error('the service account private_key is not a readable PEM key');
  }
  return new SignJWT({ scope: FCM_SCOPE })
    .setProtectedHeader({
      alg: 'RS256',
      typ: 'JWT',
      ...(account.private_key_id ? { kid: account.private_key_id } : {}),
    })
    .setIssuer(account.client_email)
    .setAudience(options.tokenUrl)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_LIFETIME_S)
    .sign(key);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
