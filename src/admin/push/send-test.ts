// The push-notification test: validates the admin's request and sends it through the chosen provider.
import { Type } from 'typebox';
import type { PushCredentials } from '../../config/push/credentials.js';
import { pushErrors } from '../../config/push/errors.js';
import {
  isObject,
  type PushPayload,
  type PushSummary,
  type PushTokenCache,
} from '../../config/push/push-types.js';
import type { ErrorDetail } from '../../errors.js';
import { errors } from '../../errors.js';
import { sendApns } from './apns.js';
import { sendFcm } from './fcm.js';

const pushProviders = ['apple/development', 'apple/production', 'google'] as const;
export type PushProvider = (typeof pushProviders)[number];

export interface PushSettings {
  apnsProductionUrl: string;
  apnsDevelopmentUrl: string;
  fcmUrl: string;
  fcmTokenUrl: string;
  /** Extra trusted CA (PEM) for the provider connections; tests use it for their loopback peers. */
  ca?: string | Buffer | undefined;
  /** Bound on each provider exchange; 10 s when absent. */
  timeoutMs?: number | undefined;
}

export interface PushTestRequest extends PushPayload {
  pushId: string;
}

export interface PushTestAnswer {
  summaries: PushSummary[];
}

export interface SendTestPushInput {
  provider: string;
  credentials: PushCredentials;
  body: unknown;
  settings: PushSettings;
  clock: () => number;
  /** Defaults to the process-wide cache, so provider tokens outlive one request. */
  tokenCache?: PushTokenCache | undefined;
}

/** The request body as the interface describes it; the service checks it again (customJson may be text). */
export const pushTestBodySchema = Type.Object(
  {
    pushId: Type.String({ minLength: 1, maxLength: 1024 }),
    title: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    subtitle: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    summary: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    messageId: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    customJson: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String(), Type.Null()]),
    ),
  },
  {
    examples: [
      {
        pushId: 'f3a9c0d2e4b6a8c0f1e3d5b7a9c1e3f5d7b9a1c3e5f7d9b1a3c5e7f9d1b3a5c7',
        title: 'Season 3',
        summary: 'The new tracks are open',
        customJson: { track: 'moon' },
      },
    ],
  },
);

export const pushTestAnswerSchema = Type.Object(
  {
    summaries: Type.Array(
      Type.Object({
        title: Type.String(),
        error: Type.Boolean(),
        outgoingMessageParts: Type.Array(Type.String()),
        resultParts: Type.Array(Type.String()),
      }),
    ),
  },
  {
    examples: [
      {
        summaries: [
          {
            title: 'APNs (development): delivered',
            error: false,
            outgoingMessageParts: ['POST /3/device/f3a9c0d2', '{"aps":{"alert":{"title":"Season 3"}}}'],
            resultParts: ['200', 'apns-id: 6F2A4B1C-0D3E-4F5A-8B9C-1D2E3F4A5B6C'],
          },
        ],
      },
    ],
  },
);

const MAX_TEXT = 1024;
// Both providers cap a whole payload at 4 KB; a larger custom part could never be delivered.
const MAX_CUSTOM_JSON_BYTES = 4096;

/**
 * Sends one test push and reports it. Throws PUSH_UNKNOWN_PROVIDER (404), VALIDATION_FAILED (400) or
 * PUSH_NOT_CONFIGURED (400); a provider's refusal or an unreachable provider is an error summary, not a throw.
 */
export async function sendTestPush(input: SendTestPushInput): Promise<PushTestAnswer> {
  const { provider, credentials, settings, clock, tokenCache } = input;
  if (!isPushProvider(provider)) throw pushErrors.pushUnknownProvider(provider);
  const { pushId, ...payload } = parsePushTestBody(input.body);
  const common = {
    deviceToken: pushId,
    payload,
    clock,
    ca: settings.ca,
    timeoutMs: settings.timeoutMs,
    tokenCache,
  };
  if (provider === 'google') {
    if (!credentials.google) throw pushErrors.pushNotConfigured(provider);
    const summary = await sendFcm({
      ...common,
      baseUrl: settings.fcmUrl,
      tokenUrl: settings.fcmTokenUrl,
      serviceAccount: credentials.google.serviceAccount,
    });
    return { summaries: [summary] };
  }
  if (!credentials.apple) throw pushErrors.pushNotConfigured(provider);
  const environment = provider === 'apple/production' ? 'production' : 'development';
  const baseUrl = environment === 'production' ? settings.apnsProductionUrl : settings.apnsDevelopmentUrl;
  const summary = await sendApns({ ...common, ...credentials.apple, baseUrl, environment });
  return { summaries: [summary] };
}

function isPushProvider(value: string): value is PushProvider {
  return (pushProviders as readonly string[]).includes(value);
}

/** Checks the body; empty or null texts count as absent, customJson may be an object or its JSON text. */
function parsePushTestBody(body: unknown): PushTestRequest {
  if (!isObject(body))
    throw errors.validation('The body must be a JSON object', [{ message: 'expected an object' }]);
  const details: ErrorDetail[] = [];
  const pushId = body.pushId;
  if (typeof pushId !== 'string' || pushId.trim() === '' || pushId.length > MAX_TEXT) {
    details.push({
      field: 'pushId',
      message: `pushId is required: the device token, 1 to ${MAX_TEXT} characters`,
    });
  }
  const texts: Record<string, string | undefined> = {};
  for (const field of ['title', 'subtitle', 'summary', 'messageId'] as const) {
    const value = body[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || value.length > MAX_TEXT) {
      details.push({ field, message: `${field} must be a string of at most ${MAX_TEXT} characters` });
    } else texts[field] = value;
  }
  const customJson = parseCustomJson(body.customJson, details);
  if (details.length > 0) throw errors.validation('The push test request is not valid', details);
  return { pushId: pushId as string, ...texts, ...(customJson ? { customJson } : {}) };
}

function parseCustomJson(value: unknown, details: ErrorDetail[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      details.push({ field: 'customJson', message: 'customJson is not valid JSON' });
      return undefined;
    }
  }
  if (!isObject(parsed)) {
    details.push({ field: 'customJson', message: 'customJson must be a JSON object' });
    return undefined;
  }
  if (Buffer.byteLength(JSON.stringify(parsed)) > MAX_CUSTOM_JSON_BYTES) {
    details.push({
      field: 'customJson',
      message: `customJson must be at most ${MAX_CUSTOM_JSON_BYTES} bytes`,
    });
    return undefined;
  }
  return parsed;
}
