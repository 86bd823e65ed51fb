// Leaderboard management on the nosql server: {stageBaseUrl}/restv2/game/{gameApiKey}/leaderboards[/...].
// JWT only; nosql.leaderboards 1 reads, 2 deletes an entry or resets; both writes audited (leaderboards.*).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf, NO_BODY } from '../route/openapi.js';
import { writePolicy } from '../route/policy.js';
import type { Stage } from '../store/scope.js';
import {
  deleteEntry,
  entriesAround,
  getLeaderboard,
  type LeaderboardEnv,
  listLeaderboards,
  resetLeaderboard,
  topEntries,
} from './leaderboard-admin.js';
import { metaOf } from './player-routes.js';

const READ = {
  auth: { credentials: ['jwt' as const], permission: ['nosql.leaderboards', 1] as ['nosql.leaderboards', 1] },
};
const WRITE = {
  auth: { credentials: ['jwt' as const], permission: ['nosql.leaderboards', 2] as ['nosql.leaderboards', 2] },
  ...writePolicy('leaderboards'),
  auditInline: true,
};
const tags = ['leaderboards'];
const ApiKey = Type.String({ minLength: 1, maxLength: 128 });
const Code = Type.String({
  minLength: 1,
  maxLength: 600,
  description: 'LB, or LB.ATTR.VALUE for a partition',
});
const GameParams = Type.Object({ gameApiKey: ApiKey });
const CodeParams = Type.Object({ gameApiKey: ApiKey, shortCode: Code });
const EntryParams = Type.Object({
  gameApiKey: ApiKey,
  shortCode: Code,
  playerId: Type.String({ minLength: 1, maxLength: 200 }),
});

const BOARD_EXAMPLE = {
  shortCode: 'HSLB',
  collection: 'HSLB-leaderboard',
  resetFrequency: 'WEEKLY',
  periodStart: '2026-11-23T00:00:00.000Z',
  nextReset: '2026-11-30T00:00:00.000Z',
  partitionAttributes: ['COUNTRY'],
  fields: [{ attribute: 'SCORE', sort: 'DESC', ranks: true }],
  boards: [
    { shortCode: 'HSLB', partition: '', partitionValues: {}, entries: 2 },
    { shortCode: 'HSLB.COUNTRY.GB', partition: 'COUNTRY.GB', partitionValues: { COUNTRY: 'GB' }, entries: 1 },
  ],
  morePartitions: false,
};
const Leaderboard = Type.Object(
  {
    shortCode: Type.String(),
    collection: Type.String(),
    resetFrequency: Type.String(),
    periodStart: Type.Union([Type.String(), Type.Null()]),
    nextReset: Type.Union([Type.String(), Type.Null()]),
    partitionAttributes: Type.Array(Type.String()),
    fields: Type.Array(Type.Object({ attribute: Type.String(), sort: Type.String(), ranks: Type.Boolean() })),
    boards: Type.Array(
      Type.Object({
        shortCode: Type.String(),
        partition: Type.String(),
        partitionValues: Type.Record(Type.String(), Type.Unknown()),
        entries: Type.Integer(),
      }),
    ),
    morePartitions: Type.Boolean(),
  },
  { examples: [BOARD_EXAMPLE] },
);
const ENTRY_EXAMPLE = {
  userId: '6b03a1c2d4e5f60718293a4b',
  userName: 'Ada',
  SCORE: 120,
  when: '2026-11-24T08:31:00.000Z',
  rank: 1,
};
const Entries = Type.Object(
  {
    leaderboardShortCode: Type.String(),
    entries: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    playerId: Type.Optional(Type.String()),
  },
  { examples: [{ leaderboardShortCode: 'HSLB', entries: [ENTRY_EXAMPLE] }] },
);
const Deleted = Type.Object(
  { leaderboardShortCode: Type.String(), playerId: Type.String(), deleted: Type.Integer() },
  { examples: [{ leaderboardShortCode: 'HSLB', playerId: '6b03a1c2d4e5f60718293a4b', deleted: 1 }] },
);
const Reset = Type.Object(
  { leaderboardShortCode: Type.String(), boards: Type.Integer(), entries: Type.Integer() },
  { examples: [{ leaderboardShortCode: 'HSLB', boards: 3, entries: 240 }] },
);

export function registerLeaderboardRoutes(app: App, ctx: Context, env: LeaderboardEnv, stage: Stage): void {
  const base = '/restv2/game/:gameApiKey/leaderboards';
  const gs = (request: FastifyRequest) => ({
    game: (request.params as { gameApiKey: string }).gameApiKey,
    stage,
  });
  const code = (request: FastifyRequest) => (request.params as { shortCode: string }).shortCode;
  const op = (name: string) => `${stage}${name}`;

  app.get(
    base,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('ListLeaderboards'),
        summary:
          "The stage's leaderboards: boards of the current period (partitions), entry counts, next reset",
        params: GameParams,
        response: { 200: listOf(Leaderboard) },
      },
    },
    async (request) => listLeaderboards(env, gs(request)),
  );

  app.get(
    `${base}/:shortCode`,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('GetLeaderboard'),
        summary: 'One leaderboard: its boards (partitions), entry counts, period and next reset',
        params: CodeParams,
        response: { 200: Leaderboard },
      },
    },
    async (request) => getLeaderboard(env, gs(request), code(request)),
  );

  app.get(
    `${base}/:shortCode/entries`,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('LeaderboardTopEntries'),
        summary: 'Entries by rank from offset (0-based): the top entries with the default offset',
        params: CodeParams,
        querystring: Type.Object(
          {
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
            count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 50' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Entries },
      },
    },
    async (request) =>
      topEntries(env, gs(request), code(request), {
        offset: request.query.offset ?? 0,
        count: request.query.count ?? 50,
      }),
  );

  app.get(
    `${base}/:shortCode/around/:playerId`,
    {
      config: READ,
      schema: {
        tags,
        operationId: op('LeaderboardEntriesAround'),
        summary: "The player's entry with up to `count` entries ahead and behind (empty when it has none)",
        params: EntryParams,
        querystring: Type.Object(
          { count: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'default 10' })) },
          { additionalProperties: false },
        ),
        response: { 200: Entries },
      },
    },
    async (request) => {
      const { playerId } = request.params;
      return entriesAround(env, gs(request), code(request), playerId, request.query.count ?? 10);
    },
  );

  app.delete(
    `${base}/:shortCode/entries/:playerId`,
    {
      config: WRITE,
      schema: {
        tags,
        operationId: op('DeleteLeaderboardEntry'),
        summary:
          "Delete the player's entry of the current period (audited); its next event makes a fresh one",
        params: EntryParams,
        response: { 200: Deleted },
      },
    },
    async (request) =>
      deleteEntry(env, gs(request), code(request), request.params.playerId, metaOf(ctx, request)),
  );

  app.post(
    `${base}/:shortCode/reset`,
    {
      config: WRITE,
      schema: {
        tags,
        ...NO_BODY,
        operationId: op('ResetLeaderboard'),
        summary:
          'Reset now: delete every board of the leaderboard (or the partition) with its entries (audited)',
        params: CodeParams,
        response: { 200: Reset },
      },
    },
    async (request) => resetLeaderboard(env, gs(request), code(request), metaOf(ctx, request)),
  );
}
