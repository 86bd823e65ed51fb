// Route of the audit log: GET /restv2/game/{apiKey}/admin/audit, newest first, paged and filtered.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { AUDIT_PAGE_SIZE } from '../store/audit.js';
import { readAudit } from './audit.js';

const Nullable = (t: ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>) =>
  Type.Union([t, Type.Null()]);

const AuditEntryOut = Type.Object({
  id: Type.String(),
  apiKey: Nullable(Type.String()),
  at: Type.String(),
  actor: Type.String(),
  credential: Nullable(Type.String()),
  action: Type.String(),
  target: Nullable(Type.String()),
  method: Nullable(Type.String()),
  path: Nullable(Type.String()),
  status: Nullable(Type.Integer()),
  requestId: Nullable(Type.String()),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
});

const AUDIT_EXAMPLE = {
  entries: [
    {
      id: '1042',
      apiKey: 'k7Qd2mXp9LwZ4rTb8nYc',
      at: '2026-11-22T12:00:00.000Z',
      actor: 'ada@studio.example',
      credential: 'token',
      action: 'config.patch',
      target: '/restv2/game/:apiKey/config/~events/:eventShortCode',
      method: 'PATCH',
      path: '/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/config/~events/winRace',
      status: 200,
      requestId: 'req-3f9a1c',
      before: { name: 'Win race' },
      after: { name: 'Win Race' },
    },
  ],
  page: 1,
  pageSize: 50,
  total: 1,
};

export function registerAuditRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    '/restv2/game/:apiKey/admin/audit',
    {
      config: { auth: { permission: ['admin.audit', 1] } },
      schema: {
        tags: ['admin'],
        operationId: 'listAudit',
        summary: 'The audit log of the game: every write, newest first',
        params: Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) }),
        querystring: Type.Object(
          {
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
            pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: AUDIT_PAGE_SIZE })),
            actor: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
            action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            since: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
            until: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
            'X-SVCAccessToken': Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              entries: Type.Array(AuditEntryOut),
              page: Type.Integer(),
              pageSize: Type.Integer(),
              total: Type.Integer(),
            },
            { examples: [AUDIT_EXAMPLE] },
          ),
        },
      },
    },
    async (request) => readAudit(pool, request.params.apiKey, request.query),
  );
}
