// Route of the push notification test: POST /restv2/game/{apiKey}/admin/pushNotifications/test/{provider}.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { writeAudit } from '../config/config-audit.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { writePolicy } from '../route/policy.js';
import {
  type PushSettings,
  type PushTestAnswer,
  pushTestAnswerSchema,
  pushTestBodySchema,
} from './push/send-test.js';
import { runPushTest } from './push-test.js';

const ApiKey = Type.String({ minLength: 1, maxLength: 128 });
const Segment = Type.String({ minLength: 1, maxLength: 64 });

/**
 * Registers the test under two paths: `test/google`, and `test/apple/development` or `test/apple/production`
 * (the provider is two segments there). `push` holds the provider URLs and the extra trusted CA.
 */
/** A push test writes nothing but is recorded under admin, by the service once the provider has answered. */
const PUSH_WRITE = { ...writePolicy('admin'), auditInline: true };

export function registerPushRoutes(app: App, ctx: Context, push: PushSettings): void {
  const { pool } = ctx.store;
  const send = (request: FastifyRequest, apiKey: string, provider: string): Promise<PushTestAnswer> =>
    runPushTest(
      pool,
      apiKey,
      { provider, body: request.body, settings: push, secretKey: ctx.settings.secretKey, clock: ctx.clock },
      writeAudit(request, ctx.clock),
    );
  const common = {
    config: { auth: { permission: ['admin.pushNotifications', 2] as ['admin.pushNotifications', 2] } },
    tags: ['admin'],
    summary: 'Send a test push notification with the game’s credentials and report both sides',
  };
  app.post(
    '/restv2/game/:apiKey/admin/pushNotifications/test/:provider',
    {
      config: { ...common.config, ...PUSH_WRITE },
      schema: {
        tags: common.tags,
        operationId: 'sendTestPush',
        summary: `${common.summary} (google)`,
        params: Type.Object({ apiKey: ApiKey, provider: Segment }),
        body: pushTestBodySchema,
        response: { 200: pushTestAnswerSchema },
      },
    },
    async (request) => send(request, request.params.apiKey, request.params.provider),
  );
  app.post(
    '/restv2/game/:apiKey/admin/pushNotifications/test/:provider/:environment',
    {
      config: { ...common.config, ...PUSH_WRITE },
      schema: {
        tags: common.tags,
        operationId: 'sendTestPushToEnvironment',
        summary: `${common.summary} (apple/development, apple/production)`,
        params: Type.Object({ apiKey: ApiKey, provider: Segment, environment: Segment }),
        body: pushTestBodySchema,
        response: { 200: pushTestAnswerSchema },
      },
    },
    async (request) => {
      const { apiKey, provider, environment } = request.params;
      return send(request, apiKey, `${provider}/${environment}`);
    },
  );
}
