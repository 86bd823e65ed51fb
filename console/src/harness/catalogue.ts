// The harness's catalogue: requests made from the game's configuration (registration, authentication, device
// authentication, one LogEventRequest per event with its attributes, leaderboard requests), and how a request is
// sent to a stage's Requests API with the server credential picked (?trace=1 in Preview).
import type { Stage } from 'playbase/client';
import { call } from '../session.js';

export type Req = Record<string, unknown> & { '@class': string };

export interface CatalogueEntry {
  group: string;
  label: string;
  request: Req;
}

interface EventShape {
  shortCode: string;
  name: string;
  '~attributes'?: { shortCode: string; dataType: string }[];
}
interface BoardShape {
  shortCode: string;
  name: string;
}

const sample = (dataType: string): unknown =>
  dataType === 'int' || dataType === 'number' ? 0 : dataType === 'json' ? {} : '';

/** The catalogue of the game's Preview configuration (what the harness is for). */
export async function loadCatalogue(apiKey: string): Promise<CatalogueEntry[]> {
  const path = { params: { path: { apiKey } } };
  const [events, boards] = await Promise.all([
    call((c) => c.api.GET('/restv2/game/{apiKey}/config/~events', path)) as Promise<EventShape[]>,
    call((c) => c.api.GET('/restv2/game/{apiKey}/config/~leaderboards', path)) as Promise<BoardShape[]>,
  ]);
  const entries: CatalogueEntry[] = [
    {
      group: 'Authentication',
      label: 'RegistrationRequest',
      request: {
        '@class': '.RegistrationRequest',
        userName: 'tester1',
        password: 'tester-password',
        displayName: 'Tester',
      },
    },
    {
      group: 'Authentication',
      label: 'AuthenticationRequest',
      request: { '@class': '.AuthenticationRequest', userName: 'tester1', password: 'tester-password' },
    },
    {
      group: 'Authentication',
      label: 'DeviceAuthenticationRequest',
      request: { '@class': '.DeviceAuthenticationRequest', deviceId: 'harness-device-1', deviceOS: 'WEBGL' },
    },
    { group: 'Player', label: 'AccountDetailsRequest', request: { '@class': '.AccountDetailsRequest' } },
  ];
  for (const e of events) {
    const attributes = Object.fromEntries(
      (e['~attributes'] ?? []).map((a) => [a.shortCode, sample(a.dataType)]),
    );
    entries.push({
      group: 'Events',
      label: `LogEventRequest ${e.shortCode}`,
      request: { '@class': '.LogEventRequest', eventKey: e.shortCode, ...attributes },
    });
  }
  for (const b of boards) {
    entries.push(
      {
        group: 'Leaderboards',
        label: `LeaderboardDataRequest ${b.shortCode}`,
        request: { '@class': '.LeaderboardDataRequest', leaderboardShortCode: b.shortCode, entryCount: 10 },
      },
      {
        group: 'Leaderboards',
        label: `AroundMeLeaderboardRequest ${b.shortCode}`,
        request: {
          '@class': '.AroundMeLeaderboardRequest',
          leaderboardShortCode: b.shortCode,
          entryCount: 5,
        },
      },
    );
  }
  return entries;
}

export const listCredentials = (apiKey: string) =>
  call((c) =>
    c.api.GET('/restv2/game/{apiKey}/config/~credentials', { params: { path: { apiKey } } }),
  ) as Promise<{ name: string }[]>;

/** The requests of the editor's JSON: one object or an array of them, each with its @class. */
export function parseRequests(text: string): Req[] {
  const json = JSON.parse(text) as unknown;
  const list = Array.isArray(json) ? json : [json];
  return list.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new Error(`Request ${i + 1} is not an object`);
    const cls = (r as Record<string, unknown>)['@class'];
    if (typeof cls !== 'string' || !/^\.?[A-Za-z]+Request$/.test(cls)) {
      throw new Error(`Request ${i + 1} needs an "@class" such as ".LogEventRequest"`);
    }
    return r as Req;
  });
}

const NO_PLAYER = new Set(['RegistrationRequest', 'AuthenticationRequest', 'DeviceAuthenticationRequest']);

export interface Target {
  apiKey: string;
  stage: Stage;
  credential: string;
  secret: string;
}

/** Sends one request; a request that needs a player and names none gets the harness's current player. */
export async function send(
  t: Target,
  req: Req,
  playerId: string | undefined,
): Promise<Record<string, unknown>> {
  const name = req['@class'].replace(/^\./, '');
  const body = !NO_PLAYER.has(name) && req.playerId === undefined && playerId ? { ...req, playerId } : req;
  const path = `/rs/{credential}/{secret}/${name}` as '/rs/{credential}/{secret}/LogEventRequest';
  return call(async (c) =>
    (await c.stage(t.apiKey, t.stage)).POST(path, {
      params: {
        path: { credential: t.credential, secret: t.secret },
        query: (t.stage === 'preview' ? { trace: '1' } : {}) as never,
      },
      body: body as never,
    }),
  ) as Promise<Record<string, unknown>>;
}
