// The typed client's credentials: the access token (Basic login) and the per-game JWTs, each renewed before it
// expires, and a fetch that adds one of them to a request and retries once when the server finds it expired.
import type { Client } from 'openapi-fetch';
import { apiError, PlaybaseApiError } from './errors.js';
import type { paths } from './schema.js';

export type Fetch = (request: Request) => Promise<Response>;

export interface Session {
  username: string;
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface CredentialOptions {
  username?: string;
  password?: string;
  accessToken?: string;
  accessTokenExpiresAt?: number;
  /** Lifetime asked for at each login (the server allows 1 to 86400; its default is 3600). */
  accessTokenSeconds?: number;
  /** Epoch milliseconds; the client's clock, for deciding when to renew (tests move it). */
  now: () => number;
  /** Renew a token this long before it expires (default 60 s). */
  refreshMarginMs?: number;
}

interface Held {
  value: string;
  expiresAt: number | undefined;
}

/** Answers that a new credential may cure: the old one expired, or its sessions were ended. */
const RENEWABLE = new Set(['TOKEN_EXPIRED', 'TOKEN_REVOKED']);

export class Credentials {
  private token: Held | undefined;
  private username: string | undefined;
  private loggingIn: Promise<Session> | undefined;
  private readonly jwts = new Map<string, Promise<Held>>();

  /** `auth` is a client of the auth server without credentials of its own. */
  constructor(
    private readonly auth: Client<paths>,
    private readonly o: CredentialOptions,
  ) {
    this.username = o.username;
    if (o.accessToken) this.token = { value: o.accessToken, expiresAt: o.accessTokenExpiresAt };
  }

  get canLogIn(): boolean {
    return this.o.username !== undefined && this.o.password !== undefined;
  }

  session(): Session | undefined {
    const t = this.token;
    return t && { username: this.username ?? '', accessToken: t.value, expiresAt: t.expiresAt ?? 0 };
  }

  /** Basic login: a new access token. Concurrent callers share one login. */
  login(): Promise<Session> {
    this.loggingIn ??= this.basicLogin().finally(() => {
      this.loggingIn = undefined;
    });
    return this.loggingIn;
  }

  /** A valid access token: the one held, or a new login when it is (nearly) expired and a password is known. */
  async accessToken(renew = false): Promise<string> {
    if (this.token && !renew && (this.fresh(this.token) || !this.canLogIn)) return this.token.value;
    if (!this.canLogIn) {
      throw new PlaybaseApiError(
        401,
        'AUTH_REQUIRED',
        'No valid access token and no password to log in with',
      );
    }
    return (await this.login()).accessToken;
  }

  /** A JWT for the game, limited to `scope` (nosql, config, admin); renewed before it expires. */
  async jwt(apiKey: string, scope: string, renew = false): Promise<string> {
    const key = `${apiKey}/${scope}`;
    const held = this.jwts.get(key);
    if (held && !renew) {
      const jwt = await held.catch(() => undefined);
      if (jwt && this.fresh(jwt)) return jwt.value;
    }
    const next = this.fetchJwt(apiKey, scope);
    this.jwts.set(key, next);
    next.catch(() => this.jwts.delete(key));
    return (await next).value;
  }

  private fresh(held: Held): boolean {
    return held.expiresAt === undefined || held.expiresAt - (this.o.refreshMarginMs ?? 60_000) > this.o.now();
  }

  private async basicLogin(): Promise<Session> {
    const basic = base64(`${this.o.username}:${this.o.password}`);
    const seconds = this.o.accessTokenSeconds;
    const { data, error, response } = await this.auth.GET('/restv2/auth/user', {
      params: { query: seconds === undefined ? {} : { expireInSeconds: String(seconds) } },
      headers: { authorization: `Basic ${basic}` },
    });
    if (!data) throw apiError(response.status, error);
    this.token = { value: data['X-SVCAccessToken'], expiresAt: data.expiresAt };
    this.username = data.username;
    return { username: data.username, accessToken: data['X-SVCAccessToken'], expiresAt: data.expiresAt };
  }

  private async fetchJwt(apiKey: string, scope: string, retried = false): Promise<Held> {
    const { data, error, response } = await this.auth.GET('/restv2/auth/game/{apiKey}/jwt/{filter}', {
      params: { path: { apiKey, filter: scope } },
      headers: { 'X-SVCAccessToken': await this.accessToken(retried) },
    });
    if (data) return { value: data['X-SVC-JWT'], expiresAt: data.expiresAt };
    const failure = apiError(response.status, error);
    if (!retried && RENEWABLE.has(failure.code) && this.canLogIn) return this.fetchJwt(apiKey, scope, true);
    throw failure;
  }
}

/**
 * A fetch that sends `header: credential()` and, when the answer is a 401 that a new credential may cure,
 * asks `credential(true)` for a new one and sends the request once more. `renewable` says whether a new one can
 * be had at all (an access token without a password cannot).
 */
export function fetchWith(
  base: Fetch,
  header: string,
  credential: (renew: boolean) => Promise<string>,
  renewable: () => boolean,
): Fetch {
  return async (request) => {
    const spare = renewable() ? request.clone() : undefined;
    request.headers.set(header, await credential(false));
    const first = await base(request);
    if (first.status !== 401 || !spare) return first;
    const code = await first
      .clone()
      .json()
      .then((b) => (b as { code?: unknown } | null)?.code)
      .catch(() => undefined);
    if (typeof code !== 'string' || !RENEWABLE.has(code)) return first;
    spare.headers.set(header, await credential(true));
    return base(spare);
  };
}

/** UTF-8 then base64, with what both Node and browsers have (the console uses this client too). */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
