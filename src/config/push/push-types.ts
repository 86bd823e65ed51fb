// Shapes shared by the push senders: the test message, the summary each sender answers, the token cache.

/** What the admin asked to send, already validated (customJson parsed to an object). */
export interface PushPayload {
  title?: string | undefined;
  subtitle?: string | undefined;
  summary?: string | undefined;
  messageId?: string | undefined;
  customJson?: Record<string, unknown> | undefined;
}

/** One provider's report: what went out and what came back, both as readable lines. */
export interface PushSummary {
  title: string;
  error: boolean;
  outgoingMessageParts: string[];
  resultParts: string[];
}

/** The fields of a Google service-account JSON file that the sender uses. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  /** PKCS#8 PEM, RSA. */
  private_key: string;
  private_key_id?: string | undefined;
  /** Ignored: the token URL is a server setting, so game credentials cannot steer requests elsewhere. */
  token_uri?: string | undefined;
}

export interface CachedToken {
  token: string;
  /** Clock time (ms) after which a new token is made. */
  refreshAt: number;
}

/**
 * Provider tokens by credential (APNs provider tokens, FCM access tokens). One cache lives for the process:
 * APNs refuses tokens refreshed more often than every 20 minutes, and an OAuth round trip per send is waste.
 */
export type PushTokenCache = Map<string, CachedToken>;

export function createPushTokenCache(): PushTokenCache {
  return new Map();
}

/** The process-wide cache used when a caller passes none. */
export const sharedPushTokenCache: PushTokenCache = createPushTokenCache();

/** A readable reason for a failed exchange (network error, timeout, unusable key), for resultParts. */
export function describeFailure(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

// Provider bodies are echoed for diagnosis; an unexpected HTML page should not flood the answer.
export function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
