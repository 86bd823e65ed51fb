// The typed client's error: a Playbase error answer ({message, code, requestId}) as an exception.

export class PlaybaseApiError extends Error {
  constructor(
    readonly status: number,
    /** The catalogue code (docs/errors.md), e.g. TOKEN_EXPIRED; HTTP_<status> when the answer had none. */
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'PlaybaseApiError';
  }
}

/** The error of an answer's parsed body (openapi-fetch's `error`), whatever its shape. */
export function apiError(status: number, body: unknown): PlaybaseApiError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return new PlaybaseApiError(
    status,
    text(b.code) ?? `HTTP_${status}`,
    text(b.message) ?? (typeof body === 'string' && body ? body : `HTTP ${status}`),
    text(b.requestId),
    b.details,
  );
}

/** The error of a raw answer (a download, a retried call): its JSON body when it has one. */
export async function errorOf(response: Response): Promise<PlaybaseApiError> {
  const text = await response.text().catch(() => '');
  try {
    return apiError(response.status, JSON.parse(text));
  } catch {
    return apiError(response.status, text.slice(0, 500));
  }
}

/**
 * The data of an openapi-fetch call, or its error answer thrown as a PlaybaseApiError:
 * `const game = await unwrap(client.api.POST('/restv2/games', { body: { name } }))`.
 */
export async function unwrap<D>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<NonNullable<D>> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw apiError(response.status, error);
  return data as NonNullable<D>;
}
