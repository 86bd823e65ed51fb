// Request and answer schemas of the player management routes (docs/players.md), with the document's examples.
import { Type } from 'typebox';

const ID = '6b03a1c2d4e5f60718293a4b';
const Json = Type.Record(Type.String(), Type.Unknown());
const IsoOrNull = Type.Union([Type.String(), Type.Null()]);

export const PlayerParams = Type.Object({
  gameApiKey: Type.String({ minLength: 1, maxLength: 128 }),
  playerId: Type.String({ minLength: 1, maxLength: 200 }),
});

export const SearchQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 256, description: 'the text to find' }),
    by: Type.Optional(
      Type.Union(
        [
          Type.Literal('userName'),
          Type.Literal('displayName'),
          Type.Literal('id'),
          Type.Literal('externalId'),
        ],
        { description: 'the one field to match; absent: any of them' },
      ),
    ),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 20' })),
  },
  { additionalProperties: false },
);

const summary = {
  id: Type.String(),
  userName: Type.Union([Type.String(), Type.Null()]),
  displayName: Type.Union([Type.String(), Type.Null()]),
  created: IsoOrNull,
  lastSeen: IsoOrNull,
  banned: Type.Boolean(),
};
const SUMMARY_EXAMPLE = {
  id: ID,
  userName: 'ada',
  displayName: 'Ada',
  created: '2026-11-20T10:00:00.000Z',
  lastSeen: '2026-11-24T08:30:00.000Z',
  banned: false,
};

export const PlayerSummary = Type.Object(summary);

export const SearchAnswer = Type.Object(
  {
    players: Type.Array(PlayerSummary),
    skip: Type.Integer(),
    limit: Type.Integer(),
    more: Type.Boolean({ description: 'true when another page follows' }),
  },
  { examples: [{ players: [SUMMARY_EXAMPLE], skip: 0, limit: 20, more: false }] },
);

const Currencies = Type.Object(
  Object.fromEntries(
    [1, 2, 3, 4, 5, 6].map((n) => [
      `currency${n}`,
      Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    ]),
  ),
  { additionalProperties: false },
);

export const PlayerOut = Type.Object(
  {
    ...summary,
    ban: Type.Union([
      Type.Object({ at: IsoOrNull, by: Type.Union([Type.String(), Type.Null()]), reason: IsoOrNull }),
      Type.Null(),
    ]),
    currencies: Type.Record(Type.String(), Type.Unknown()),
    scriptData: Json,
    privateData: Json,
    externalIds: Json,
    sessionsResetAt: IsoOrNull,
  },
  {
    examples: [
      {
        ...SUMMARY_EXAMPLE,
        ban: null,
        currencies: { currency1: 120, currency2: 0, currency3: 0, currency4: 0, currency5: 0, currency6: 0 },
        scriptData: { level: 7 },
        privateData: {},
        externalIds: { FB: '1000123' },
        sessionsResetAt: null,
      },
    ],
  },
);

export const EditBody = Type.Object(
  {
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    currencies: Type.Optional(Currencies),
    scriptData: Type.Optional(Json),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ displayName: 'Ada L.', currencies: { currency1: 150 }, scriptData: { level: 8 } }],
  },
);

export const BanBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false, examples: [{ reason: 'cheating: impossible scores' }] },
);

export const ResetAnswer = Type.Object(
  { storedSessions: Type.Integer(), lockoutCleared: Type.Boolean() },
  { examples: [{ storedSessions: 0, lockoutCleared: true }] },
);

export const EraseAnswer = Type.Object(
  {
    player: Type.Integer(),
    leaderboardEntries: Type.Integer(),
    leaderboardDocuments: Type.Integer(),
    runningTotals: Type.Integer(),
    dataItems: Type.Integer(),
    devices: Type.Integer(),
    loginFailures: Type.Integer(),
  },
  {
    examples: [
      {
        player: 1,
        leaderboardEntries: 2,
        leaderboardDocuments: 0,
        runningTotals: 1,
        dataItems: 1,
        devices: 0,
        loginFailures: 0,
      },
    ],
  },
);

const Listed = Type.Array(Type.Object({ collection: Type.String(), document: Type.Unknown() }));

export const ExportAnswer = Type.Object(
  {
    exportedAt: Type.String(),
    game: Type.String(),
    stage: Type.String(),
    playerId: Type.String(),
    player: Type.Unknown({ description: 'the player document (extended JSON), password hash withheld' }),
    passwordSet: Type.Boolean(),
    devices: Type.Array(Type.String()),
    loginFailures: Type.Union([
      Type.Object({ failures: Type.Integer(), lockedUntil: Type.Integer() }),
      Type.Null(),
    ]),
    runningTotals: Listed,
    leaderboardDocuments: Listed,
    leaderboardEntries: Type.Array(Type.Unknown()),
    dataItems: Type.Array(Type.Unknown()),
  },
  {
    examples: [
      {
        exportedAt: '2026-11-24T09:00:00.000Z',
        game: 'abcdefghij0123456789',
        stage: 'preview',
        playerId: ID,
        player: { _id: { $oid: ID }, userName: 'ada', displayName: 'Ada', currency1: 120 },
        passwordSet: true,
        devices: [],
        loginFailures: null,
        runningTotals: [{ collection: 'HS-runningTotal', document: { _id: ID, userId: ID, SCORE: 120 } }],
        leaderboardDocuments: [],
        leaderboardEntries: [
          {
            leaderboard: 'HSLB',
            partition: '',
            periodStart: '1970-01-01T00:00:00.000Z',
            values: [120, 1],
            when: '2026-11-24T08:31:00.000Z',
            userName: 'Ada',
          },
        ],
        dataItems: [],
      },
    ],
  },
);
