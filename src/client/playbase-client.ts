// The typed Playbase client: openapi-fetch over the generated types, with the auth flow and endpoint discovery.
//
// Management calls (auth and config roles) carry the access token; nosql and data calls go to the stage base URL
// that endpoint discovery names and carry a JWT of the game. Both are fetched when first needed, renewed before
// they expire, and renewed once more when the server answers that one has expired (a clock that differs).
import createClient, { type Client } from 'openapi-fetch';
import { type CredentialOptions, Credentials, type Fetch, fetchWith, type Session } from './credentials.js';
import { apiError, errorOf } from './errors.js';
import type { paths } from './schema.js';

export type Stage = 'live' | 'preview';

/** Paths of a stage base URL: the nosql, data and runtime paths without their /live or /preview prefix. */
export type StagePaths = {
  [K in keyof paths as K extends `/preview${infer Rest}` ? Rest : never]: paths[K];
};

export type Endpoints =
  paths['/restv2/game/{gameApiKey}/endpoints']['get']['responses'][200]['content']['application/json'];

export interface PlaybaseClientOptions extends Partial<Omit<CredentialOptions, 'now'>> {
  /** The server's base URL (PUBLIC_URL): the auth and config roles, and endpoint discovery. */
  baseUrl: string;
  /** Split mode: the auth server's base URL, for /restv2/auth/** (default: baseUrl). */
  authUrl?: string;
  /** Epoch milliseconds (default Date.now): when tokens are renewed. */
  now?: () => number;
  fetch?: Fetch;
}

export interface PlaybaseClient {
  /** Every management operation (auth and config roles), sent with the access token. */
  api: Client<paths>;
  /** Logs in with the username and password given (Basic): a new access token. */
  login(): Promise<Session>;
  /** The access token held now, for callers that keep it (the CLI). */
  session(): Session | undefined;
  /** A JWT for the game (scope nosql, config or admin), renewed before it expires. */
  jwt(apiKey: string, scope?: string): Promise<string>;
  /** The game's stage base URLs (endpoint discovery), asked once per game. */
  endpoints(apiKey: string): Promise<Endpoints>;
  /** One stage's base URL, from endpoint discovery: for calls made without openapi-fetch (a streamed upload). */
  stageUrl(apiKey: string, stage: Stage): Promise<string>;
  /** The nosql, data and runtime operations of one stage of a game, at its discovered base URL, with a JWT. */
  stage(apiKey: string, stage: Stage): Promise<Client<StagePaths>>;
  /** GET of an export link (it is its own credential): the answer, its body not yet read. */
  download(url: string): Promise<Response>;
}

export function createPlaybaseClient(options: PlaybaseClientOptions): PlaybaseClient {
  const baseFetch: Fetch = options.fetch ?? ((request) => fetch(request));
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const authUrl = (options.authUrl ?? baseUrl).replace(/\/+$/, '');
  const toAuth = routeAuthCalls(baseFetch, baseUrl, authUrl);
  const credentials = new Credentials(createClient<paths>({ baseUrl, fetch: toAuth }), {
    ...options,
    now: options.now ?? Date.now,
  });
  const api = createClient<paths>({
    baseUrl,
    fetch: fetchWith(
      toAuth,
      'X-SVCAccessToken',
      (renew) => credentials.accessToken(renew),
      () => credentials.canLogIn,
    ),
  });
  const discovered = new Map<string, Promise<Endpoints>>();
  const stages = new Map<string, Promise<Client<StagePaths>>>();

  const endpoints = (apiKey: string) => {
    let found = discovered.get(apiKey);
    if (!found) {
      found = discover(api, apiKey);
      discovered.set(apiKey, found);
      found.catch(() => discovered.delete(apiKey));
    }
    return found;
  };
  const stageUrl = async (apiKey: string, stage: Stage) => {
    const url = (await endpoints(apiKey))[stage === 'live' ? 'liveNosql' : 'previewNosql'];
    if (!url)
      throw apiError(404, { code: 'STAGE_NOT_SERVED', message: `No ${stage} nosql server for ${apiKey}` });
    return url;
  };
  const stageClient = async (apiKey: string, stage: Stage) => {
    const jwt = (renew: boolean) => credentials.jwt(apiKey, 'nosql', renew);
    return createClient<StagePaths>({
      baseUrl: await stageUrl(apiKey, stage),
      fetch: withJwtOnRestCalls(baseFetch, jwt),
    });
  };

  return {
    api,
    login: () => credentials.login(),
    session: () => credentials.session(),
    jwt: (apiKey, scope = 'nosql') => credentials.jwt(apiKey, scope),
    endpoints,
    stageUrl,
    stage(apiKey, stage) {
      const key = `${apiKey}/${stage}`;
      let client = stages.get(key);
      if (!client) {
        client = stageClient(apiKey, stage);
        stages.set(key, client);
        client.catch(() => stages.delete(key));
      }
      return client;
    },
    async download(url) {
      const response = await baseFetch(new Request(url));
      if (!response.ok) throw await errorOf(response);
      return response;
    },
  };
}

async function discover(api: Client<paths>, apiKey: string): Promise<Endpoints> {
  const { data, error, response } = await api.GET('/restv2/game/{gameApiKey}/endpoints', {
    params: { path: { gameApiKey: apiKey } },
  });
  if (!data) throw apiError(response.status, error);
  return data;
}

/** Split mode: /restv2/auth/** goes to the auth server, everything else to baseUrl. */
function routeAuthCalls(base: Fetch, baseUrl: string, authUrl: string): Fetch {
  if (authUrl === baseUrl) return base;
  return (request) => {
    const rest = request.url.slice(baseUrl.length);
    if (!request.url.startsWith(baseUrl) || !rest.startsWith('/restv2/auth/')) return base(request);
    return base(new Request(authUrl + rest, request));
  };
}

/** The JWT goes with the nosql and data calls; the runtime requests carry their credential in the URL. */
function withJwtOnRestCalls(base: Fetch, jwt: (renew: boolean) => Promise<string>): Fetch {
  const withJwt = fetchWith(base, 'X-SVC-JWT', jwt, () => true);
  return (request) => (new URL(request.url).pathname.includes('/restv2/') ? withJwt(request) : base(request));
}
