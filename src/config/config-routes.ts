// Routes of the whole configuration (/config), server credentials (~credentials) and push credentials.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../http/app.js';
import { withTransaction } from '../store/db.js';
import { loadConfigSummary, loadFullConfig, replaceFullConfig } from './config-store.js';
import {
  CredentialInput,
  CredentialName,
  CredentialOut,
  FullConfigInput,
  FullConfigOut,
} from './config-types.js';
import { describeStoredPushCredentials, savePushCredentials } from './push-config.js';
import { ApiKeyParams, CONFIG_BASE, Message, need, paramsWith, SUCCESS, TAGS as tags } from './route-kit.js';
import {
  createCredential,
  deleteCredential,
  getCredential,
  listCredentials,
  resetCredentialSecret,
} from './server-credentials.js';

const Brief = Type.Object({ '@id': Type.String(), shortCode: Type.String(), name: Type.String() });
const SummaryOut = Type.Object({
  apiKey: Type.String(),
  version: Type.Integer(),
  '~events': Type.Array(Brief),
  '~runningTotals': Type.Array(Brief),
  '~leaderboards': Type.Array(Brief),
  '~indexedTypes': Type.Array(Brief),
  '~credentials': Type.Array(CredentialOut),
});
const PushView = Type.Object({
  apple: Type.Optional(Type.Object({ keyId: Type.String(), teamId: Type.String(), topic: Type.String() })),
  google: Type.Optional(Type.Object({ projectId: Type.String(), clientEmail: Type.String() })),
});

export function registerWholeConfigRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    CONFIG_BASE,
    {
      config: need('configurator.config', 1),
      schema: {
        tags,
        summary: 'The configuration: top-level entities and version, or with ?full=true the whole document',
        params: ApiKeyParams,
        querystring: Type.Object({ full: Type.Optional(Type.Boolean()) }),
        // The summary first: a full document never has `version`, an empty summary would pass as a full one.
        response: { 200: Type.Union([SummaryOut, FullConfigOut]) },
      },
    },
    async (request) =>
      request.query.full
        ? loadFullConfig(pool, request.params.apiKey)
        : loadConfigSummary(pool, request.params.apiKey),
  );
  app.put(
    CONFIG_BASE,
    {
      config: need('configurator.config', 2),
      schema: {
        tags,
        summary: 'Replace the whole configuration (validated first, applied atomically)',
        params: ApiKeyParams,
        body: FullConfigInput,
        response: { 200: FullConfigOut },
      },
    },
    async (request) =>
      withTransaction(pool, (client) => replaceFullConfig(client, request.params.apiKey, request.body)),
  );
  registerCredentialRoutes(app, ctx);
  registerPushCredentialRoutes(app, ctx);
}

function registerCredentialRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const read = need('configurator.credentials', 1);
  const write = need('configurator.credentials', 2);
  const base = `${CONFIG_BASE}/~credentials`;
  const NameParams = paramsWith({ name: CredentialName });
  const Secret = Type.Object({ secret: Type.String() });
  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: 'List server credentials (never their secrets)',
        params: ApiKeyParams,
        response: { 200: Type.Array(CredentialOut) },
      },
    },
    async (request) => listCredentials(pool, request.params.apiKey),
  );
  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a server credential; the answer shows its secret, this once',
        params: ApiKeyParams,
        body: Type.Omit(CredentialInput, ['@id']),
        response: { 201: Type.Object({ '@id': Type.String(), name: Type.String(), secret: Type.String() }) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createCredential(pool, request.params.apiKey, request.body.name)),
  );
  app.get(
    `${base}/:name`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Read a server credential',
        params: NameParams,
        response: { 200: CredentialOut },
      },
    },
    async (request) => getCredential(pool, request.params.apiKey, request.params.name),
  );
  app.post(
    `${base}/:name/resetSecret`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Give a credential a new secret, shown this once',
        params: NameParams,
        response: { 200: Secret },
      },
    },
    async (request) => resetCredentialSecret(pool, request.params.apiKey, request.params.name),
  );
  app.delete(
    `${base}/:name`,
    {
      config: write,
      schema: { tags, summary: 'Delete a server credential', params: NameParams, response: { 200: Message } },
    },
    async (request) => {
      await deleteCredential(pool, request.params.apiKey, request.params.name);
      return SUCCESS;
    },
  );
}

function registerPushCredentialRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  const path = `${CONFIG_BASE}/~pushCredentials`;
  app.get(
    path,
    {
      config: need('configurator.pushCredentials', 1),
      schema: {
        tags,
        summary: 'Configured push credentials: identifiers only, never keys',
        params: ApiKeyParams,
        response: { 200: PushView },
      },
    },
    async (request) => describeStoredPushCredentials(pool, request.params.apiKey, ctx.settings.secretKey),
  );
  app.put(
    path,
    {
      config: need('configurator.pushCredentials', 2),
      schema: {
        tags,
        summary: 'Replace the APNs / FCM credentials ({} removes them); stored sealed',
        params: ApiKeyParams,
        body: Type.Object(
          { apple: Type.Optional(Type.Unknown()), google: Type.Optional(Type.Unknown()) },
          { additionalProperties: false },
        ),
        response: { 200: PushView },
      },
    },
    async (request) => savePushCredentials(pool, request.params.apiKey, request.body, ctx.settings.secretKey),
  );
}
