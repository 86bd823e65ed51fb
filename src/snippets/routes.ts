// Running admin snippets on the nosql server, under each stage base URL (/live, /preview):
// POST {stageBaseUrl}/restv2/game/{gameApiKey}/manage/snippets/{shortCode}/run with {scriptData}.
// JWT only; nosql.snippets 2 (a snippet's script may write runtime data), plus the snippet's own groups; audited
// (manage.snippet.run) whatever the script's outcome. docs/cloud-code.md, "Snippets".
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { writePolicy } from '../route/policy.js';
import { STAGES, type Stage } from '../store/scope.js';
import { runSnippet } from './run.js';

const RUN = {
  auth: { credentials: ['jwt' as const], permission: ['nosql.snippets', 2] as ['nosql.snippets', 2] },
  ...writePolicy('manage'),
  auditInline: true,
};
const BODY_LIMIT = 256 * 1024;

const Params = Type.Object({
  gameApiKey: Type.String({ minLength: 1, maxLength: 128 }),
  shortCode: Type.String({ minLength: 1, maxLength: 200 }),
});
const Body = Type.Object(
  {
    scriptData: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Spark.getData().scriptData: the snippet attribute's query parameters and the form's fields",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ scriptData: { playerId: '6b03a1c2d4e5f60718293a4b', amount: 100 } }],
  },
);
const TraceEntry = Type.Object({
  script: Type.String(),
  outcome: Type.String(),
  ms: Type.Number(),
  logs: Type.Array(Type.Object({ ts: Type.Number(), level: Type.String(), log: Type.Unknown() })),
  calls: Type.Array(Type.Object({ op: Type.String(), ms: Type.Number() })),
  error: Type.Optional(
    Type.Object({
      message: Type.String(),
      at: Type.Union([Type.String(), Type.Null()]),
      stack: Type.String(),
    }),
  ),
});
const Answer = Type.Object(
  {
    scriptData: Type.Record(Type.String(), Type.Unknown()),
    error: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    scriptErrorId: Type.Optional(Type.String()),
    scriptErrorMessage: Type.Optional(Type.String()),
    scriptErrorAt: Type.Optional(Type.String()),
    trace: Type.Optional(Type.Array(TraceEntry)),
  },
  {
    examples: [
      { scriptData: { player: { displayName: 'Ada', coins: 120 } } },
      { scriptData: {}, error: { SCRIPT: 'ERROR' }, scriptErrorId: '6b03a1c2d4e5f60718293a4b' },
    ],
  },
);

function registerStage(app: App, ctx: Context, stage: Stage): void {
  app.post(
    '/restv2/game/:gameApiKey/manage/snippets/:shortCode/run',
    {
      config: RUN,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags: ['manage'],
        operationId: `${stage}RunSnippet`,
        summary:
          "Run an admin snippet's Cloud Code with no player; answers its scriptData (audited; ?trace=1 in Preview)",
        params: Params,
        querystring: Type.Object({
          trace: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])),
        }),
        body: Body,
        response: { 200: Answer },
      },
    },
    async (request: FastifyRequest<{ Params: { gameApiKey: string; shortCode: string } }>) => {
      const who = principalOf(request);
      const body = (request.body ?? {}) as { scriptData?: Record<string, unknown> };
      const query = request.query as { trace?: string };
      return runSnippet(
        { pool: ctx.store.pool, scripts: ctx.scripts },
        { game: request.params.gameApiKey, stage },
        request.params.shortCode,
        body.scriptData ?? {},
        {
          actor: who.username,
          credential: who.kind,
          requestId: request.id,
          path: request.routeOptions.url ?? '',
          at: ctx.clock(),
          owner: who.game?.owner === true,
          groups: who.game?.groups ?? [],
        },
        query.trace === '1',
      );
    },
  );
}

export async function registerSnippetRoutes(app: App, ctx: Context): Promise<void> {
  for (const stage of STAGES) {
    await app.register(async (scope) => registerStage(scope as App, ctx, stage), { prefix: `/${stage}` });
  }
}
