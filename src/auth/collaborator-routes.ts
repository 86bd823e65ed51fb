// Routes of the auth role for a game's collaborators and its ownership: /restv2/auth/game/{apiKey}/collaborators
// and /owner.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { authAudit } from './auth-audit.js';
import { principalOf } from './authenticate.js';
import * as collab from './collaborators.js';
import { authErrors } from './errors.js';
import { COLLABORATOR, CollaboratorBody, CollaboratorOut } from './route-schemas.js';
import { ApiKeyParams, AUTH_WRITE, game, Message } from './session-routes.js';

export function registerCollaborators(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const base = '/restv2/auth/game/:apiKey';
  const tags = ['auth'];
  const EmailParams = Type.Object({
    apiKey: Type.String({ minLength: 1 }),
    email: Type.String({ minLength: 3, maxLength: 254 }),
  });
  app.get(
    `${base}/collaborators`,
    {
      config: game('admin.permissions', 1),
      schema: {
        tags,
        operationId: 'listCollaborators',
        summary: "The game's collaborators",
        params: ApiKeyParams,
        response: { 200: Type.Array(CollaboratorOut, { examples: [[COLLABORATOR]] }) },
      },
    },
    async (request) => collab.listCollaborators(pool, request.params.apiKey),
  );
  app.post(
    `${base}/collaborators`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'addCollaborator',
        summary: 'Add a collaborator (an existing account) with groups',
        params: ApiKeyParams,
        body: CollaboratorBody,
        response: { 201: CollaboratorOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await collab.addCollaborator(
            pool,
            request.params.apiKey,
            request.body,
            authAudit(request, ctx.clock, 201),
          ),
        ),
  );
  app.get(
    `${base}/collaborators/:email`,
    {
      config: game('admin.permissions', 1),
      schema: {
        tags,
        operationId: 'getCollaborator',
        summary: 'Read a collaborator',
        params: EmailParams,
        response: { 200: CollaboratorOut },
      },
    },
    async (request) => collab.getCollaborator(pool, request.params.apiKey, request.params.email),
  );
  app.put(
    `${base}/collaborators/:email`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'updateCollaborator',
        summary: "Replace a collaborator's groups",
        params: EmailParams,
        body: Type.Object(
          {
            email: Type.Optional(Type.String()),
            groupNames: Type.Array(Type.String(), { maxItems: 64 }),
          },
          { examples: [{ groupNames: ['Designers', 'Analysts'] }] },
        ),
        response: { 200: CollaboratorOut },
      },
    },
    async (request) =>
      collab.updateCollaborator(
        pool,
        request.params.apiKey,
        request.params.email,
        request.body.groupNames,
        authAudit(request, ctx.clock),
      ),
  );
  app.delete(
    `${base}/collaborators/:email`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'removeCollaborator',
        summary: 'Remove a collaborator',
        params: EmailParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      const audit = authAudit(request, ctx.clock);
      await collab.removeCollaborator(pool, request.params.apiKey, request.params.email, audit);
      return { message: 'SUCCESS' };
    },
  );
  app.put(
    `${base}/owner`,
    {
      config: { ...game('admin.permissions', 2), ...AUTH_WRITE },
      schema: {
        tags,
        operationId: 'transferOwnership',
        summary: 'Transfer ownership (owner only)',
        params: ApiKeyParams,
        body: Type.Object(
          { email: Type.String({ minLength: 3 }) },
          { additionalProperties: false, examples: [{ email: 'grace@studio.example' }] },
        ),
        response: { 200: Message },
      },
    },
    async (request) => {
      const who = principalOf(request);
      if (!who.game?.owner) throw authErrors.forbidden('owner', 2);
      const audit = authAudit(request, ctx.clock);
      await collab.transferOwnership(pool, request.params.apiKey, who.username, request.body.email, audit);
      return { message: 'SUCCESS' };
    },
  );
}
