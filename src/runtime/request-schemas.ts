// Each runtime request's body and answer as the OpenAPI document shows them (docs/runtime.md, "Requests").
//
// The handlers read the fields themselves and answer a missing or wrong one with HTTP 200 and the platform's
// `error: {FIELD: REQUIRED | INVALID}`, as the original clients expect; a validating schema would answer 400
// instead (and Ajv would coerce "5" into 5). So these schemas are given to the document only, and "required"
// below means what the request needs to succeed.
import { type TObject, type TProperties, type TSchema, Type } from 'typebox';

const PLAYER_ID = '6740a1b2c3d4e5f601234567';
const RequestId = Type.Union([Type.String(), Type.Number()], {
  description: 'echoed in the answer exactly as sent',
});
const FieldErrors = Type.Record(Type.String(), Type.String(), {
  description: 'request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED',
});
const Count = (description: string) => Type.Integer({ minimum: 0, maximum: 1000, description });
const Entry = Type.Record(Type.String(), Type.Unknown(), {
  description: '{userId, userName, <field codes>, <partition attributes>, when, rank}',
});

export interface RuntimeRequestDoc {
  body: TSchema;
  answer: TSchema;
}

/** A request body: its own fields, plus the optional @class and requestId of every request. */
function body(name: string, props: TProperties, example: Record<string, unknown>, open = false): TObject {
  return Type.Object(
    {
      '@class': Type.Optional(Type.Literal(`.${name}`)),
      requestId: Type.Optional(RequestId),
      ...props,
    },
    { additionalProperties: open, examples: [{ '@class': `.${name}`, ...example, requestId: 'r-17' }] },
  );
}

/** An answer: its @class, its fields on success, or `error`; requestId when the request had one. */
function answer(cls: string, props: TProperties, example: Record<string, unknown>): TObject {
  const optional = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)]));
  return Type.Object(
    {
      '@class': Type.Literal(cls),
      ...optional,
      error: Type.Optional(FieldErrors),
      requestId: Type.Optional(RequestId),
    },
    { examples: [{ '@class': cls, ...example, requestId: 'r-17' }] },
  );
}

const login = {
  authToken: Type.String({ description: 'a fresh UUID; authorizes nothing (the API acts by playerId)' }),
  displayName: Type.Union([Type.String(), Type.Null()]),
  newPlayer: Type.Boolean(),
  userId: Type.String(),
};
const LOGIN_EXAMPLE = {
  authToken: '3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b',
  displayName: 'Ada',
  newPlayer: false,
  userId: PLAYER_ID,
};
const boardFields = {
  leaderboardShortCode: Type.String({ description: 'LB, or LB.ATTR.VALUE for a partition' }),
  entryCount: Type.Optional(Count('entries to answer (default 50)')),
  includeFirst: Type.Optional(Count('also answer the first n entries in `first`')),
  includeLast: Type.Optional(Count('also answer the last n entries in `last`')),
};
const boardAnswer = {
  data: Type.Array(Entry),
  first: Type.Array(Entry),
  last: Type.Array(Entry),
  leaderboardShortCode: Type.String(),
};
const ENTRY = {
  userId: PLAYER_ID,
  userName: 'Ada',
  SCORE: 1200,
  when: '2026-11-22T12:00:00.000Z',
  rank: 1,
};
const CURRENCIES = ['currency1', 'currency2', 'currency3', 'currency4', 'currency5', 'currency6'];
const Credentials = { userName: Type.String(), password: Type.String() };

/** The seven requests, by the name that ends their URL. */
export const RUNTIME_REQUESTS: Record<string, RuntimeRequestDoc> = {
  RegistrationRequest: {
    body: body(
      'RegistrationRequest',
      {
        ...Credentials,
        displayName: Type.Optional(Type.String({ description: 'defaults to the user name' })),
      },
      { userName: 'ada', password: 'correct horse', displayName: 'Ada' },
    ),
    answer: answer('.RegistrationResponse', login, { ...LOGIN_EXAMPLE, newPlayer: true }),
  },
  AuthenticationRequest: {
    body: body('AuthenticationRequest', Credentials, { userName: 'ada', password: 'correct horse' }),
    answer: answer('.AuthenticationResponse', login, LOGIN_EXAMPLE),
  },
  DeviceAuthenticationRequest: {
    body: body(
      'DeviceAuthenticationRequest',
      { deviceId: Type.String(), deviceOS: Type.String(), displayName: Type.Optional(Type.String()) },
      { deviceId: 'a1b2c3d4-device', deviceOS: 'ANDROID', displayName: 'Ada' },
    ),
    answer: answer('.AuthenticationResponse', login, { ...LOGIN_EXAMPLE, newPlayer: true }),
  },
  AccountDetailsRequest: {
    body: body('AccountDetailsRequest', { playerId: Type.String() }, { playerId: PLAYER_ID }),
    answer: answer(
      '.AccountDetailsResponse',
      {
        achievements: Type.Array(Type.Unknown()),
        ...Object.fromEntries(
          CURRENCIES.map((c) => [c, Type.Unknown({ description: 'a number (extended JSON)' })]),
        ),
        displayName: Type.Union([Type.String(), Type.Null()]),
        externalIds: Type.Record(Type.String(), Type.Unknown()),
        userId: Type.String(),
        virtualGoods: Type.Record(Type.String(), Type.Unknown()),
      },
      {
        achievements: [],
        currency1: 0,
        currency2: 0,
        currency3: 0,
        currency4: 0,
        currency5: 0,
        currency6: 0,
        displayName: 'Ada',
        externalIds: {},
        userId: PLAYER_ID,
        virtualGoods: {},
      },
    ),
  },
  LogEventRequest: {
    body: body(
      'LogEventRequest',
      { playerId: Type.String(), eventKey: Type.String({ description: "the event's short code" }) },
      { playerId: PLAYER_ID, eventKey: 'winRace', SCORE: 1200, TRACK: 'moon' },
      // One more top-level key per attribute short code of the event.
      true,
    ),
    answer: answer('.LogEventResponse', {}, {}),
  },
  LeaderboardDataRequest: {
    body: body(
      'LeaderboardDataRequest',
      { ...boardFields, offset: Type.Optional(Type.Integer({ minimum: 0, description: '0-based' })) },
      { leaderboardShortCode: 'topScores', entryCount: 10, offset: 0 },
    ),
    answer: answer('.LeaderboardDataResponse', boardAnswer, {
      data: [ENTRY],
      leaderboardShortCode: 'topScores',
    }),
  },
  AroundMeLeaderboardRequest: {
    body: body(
      'AroundMeLeaderboardRequest',
      { playerId: Type.String(), ...boardFields },
      { playerId: PLAYER_ID, leaderboardShortCode: 'topScores', entryCount: 2 },
    ),
    answer: answer('.AroundMeLeaderboardResponse', boardAnswer, {
      data: [ENTRY],
      leaderboardShortCode: 'topScores',
    }),
  },
};
