// The signed-in session: the access token in memory and in this tab's sessionStorage (never localStorage or a
// cookie). Every API call goes through `call`: when the server says the token is no longer good (expired,
// revoked, unknown) the sign-in dialog opens over the page, and the call is sent again once the user has signed
// in, so nothing typed on the page is lost.
import { signal } from '@preact/signals';
import {
  createPlaybaseClient,
  PlaybaseApiError,
  type PlaybaseClient,
  type Session,
  unwrap,
} from 'playbase/client';

const STORE_KEY = 'playbase.console.session';
const SIGN_IN_AGAIN = new Set(['TOKEN_EXPIRED', 'TOKEN_REVOKED', 'TOKEN_INVALID', 'AUTH_REQUIRED']);

export const session = signal<Session | undefined>(load());
/** True while the sign-in dialog asks for the password again over the page. */
export const signInAgain = signal(false);

let client: PlaybaseClient | undefined;
let waiting: (() => void)[] = [];

function load(): Session | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? 'null') as Session | null;
    return saved?.accessToken ? saved : undefined;
  } catch {
    return undefined;
  }
}

function clientFor(s: Session): PlaybaseClient {
  return createPlaybaseClient({
    baseUrl: location.origin,
    accessToken: s.accessToken,
    accessTokenExpiresAt: s.expiresAt,
  });
}

/** Basic login: the password is used for this one request and not kept. */
export async function signIn(username: string, password: string): Promise<void> {
  const s = await createPlaybaseClient({ baseUrl: location.origin, username, password }).login();
  client = clientFor(s);
  sessionStorage.setItem(STORE_KEY, JSON.stringify(s));
  session.value = s;
  signInAgain.value = false;
  const resume = waiting;
  waiting = [];
  for (const go of resume) go();
}

/** Forgets the token here (the server side is the caller's business: logOut revokes it first). */
export function forget(): void {
  client = undefined;
  sessionStorage.removeItem(STORE_KEY);
  session.value = undefined;
  signInAgain.value = false;
  waiting = [];
}

export async function logOut(): Promise<void> {
  await call((c) => c.api.DELETE('/restv2/auth/user')).catch(() => undefined);
  forget();
  // The next person to sign in here starts from the game picker.
  location.hash = '#/games';
}

function current(): PlaybaseClient {
  const s = session.value;
  if (!s) throw new PlaybaseApiError(401, 'AUTH_REQUIRED', 'Sign in first');
  client ??= clientFor(s);
  return client;
}

type Answer<D> = Promise<{ data?: D; error?: unknown; response: Response }>;

/** One API call through the typed client; a token the server refuses opens the sign-in dialog, then retries. */
export async function call<D>(send: (c: PlaybaseClient) => Answer<D>): Promise<NonNullable<D>> {
  for (;;) {
    try {
      return await unwrap(send(current()));
    } catch (e) {
      if (!(e instanceof PlaybaseApiError) || e.status !== 401 || !SIGN_IN_AGAIN.has(e.code)) throw e;
      if (!session.value) throw e;
      client = undefined;
      signInAgain.value = true;
      await new Promise<void>((resume) => waiting.push(resume));
    }
  }
}

/** The client itself, for calls that are not one request (endpoint discovery). */
export function withClient<T>(use: (c: PlaybaseClient) => Promise<T>): Promise<T> {
  return use(current());
}
