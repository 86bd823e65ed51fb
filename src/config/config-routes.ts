// Routes of the whole configuration (/config), server credentials (~credentials) and push credentials.
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf, NO_BODY } from '../route/openapi.js';
import { withTransaction } from '../store/db.js';
import { configAudit } from './config-audit.js';
import { loadConfigSummary, loadFullConfig, replaceFullConfig } from './config-store.js';
import {
  CREDENTIAL_EXAMPLE,
  CredentialInput,
  CredentialName,
  CredentialOut,
  FULL_CONFIG_EXAMPLE,
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
const brief = (e: { '@id': string; shortCode: string; name: string }) => ({
  '@id': e['@id'],
  shortCode: e.shortCode,
  name: e.name,
});
const SummaryOut = Type.Object({
  apiKey: Type.String(),
  version: Type.Integer(),
  '~events': Type.Array(Brief),
  '~runningTotals': Type.Array(Brief),
  '~leaderboards': Type.Array(Brief),
  '~indexedTypes': Type.Array(Brief),
  '~credentials': Type.Array(CredentialOut),
});
const SUMMARY_EXAMPLE = {
  apiKey: FULL_CONFIG_EXAMPLE.apiKey,
  version: 7,
  '~events': FULL_CONFIG_EXAMPLE['~events'].map(brief),
  '~runningTotals': FULL_CONFIG_EXAMPLE['~runningTotals'].map(brief),
  '~leaderboards': FULL_CONFIG_EXAMPLE['~leaderboards'].map(brief),
  '~indexedTypes': FULL_CONFIG_EXAMPLE['~indexedTypes'].map(brief),
  '~credentials': [CREDENTIAL_EXAMPLE],
};
const PushView = Type.Object(
  {
    apple: Type.Optional(Type.Object({ keyId: Type.String(), teamId: Type.String(), topic: Type.String() })),
    google: Type.Optional(Type.Object({ projectId: Type.String(), clientEmail: Type.String() })),
  },
  {
    examples: [
      {
        apple: { keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', topic: 'com.studio.spaceminers' },
        google: { projectId: 'space-miners', clientEmail: 'push@space-miners.iam.gserviceaccount.com' },
      },
    ],
  },
);

export function registerWholeConfigRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    CONFIG_BASE,
    {
      config: need('configurator.config', 1),
      schema: {
        tags,
        operationId: 'getConfig',
        summary: 'The configuration: top-level entities and version, or with ?full=true the whole document',
        params: ApiKeyParams,
        querystring: Type.Object({ full: Type.Optional(Type.Boolean()) }),
        // The summary first: a full document never has `version`, an empty summary would pass as a full one.
        response: {
          200: Type.Union([SummaryOut, FullConfigOut], { examples: [SUMMARY_EXAMPLE, FULL_CONFIG_EXAMPLE] }),
        },
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
        operationId: 'replaceConfig',
        summary: 'Replace the whole configuration (validated first, applied atomically)',
        params: ApiKeyParams,
        body: FullConfigInput,
        response: { 200: FullConfigOut },
      },
    },
    async (request) =>
      withTransaction(pool, (client) =>
        replaceFullConfig(client, request.params.apiKey, request.body, {
          audit: configAudit(request, ctx.clock),
        }),
      ),
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
  const SECRET = 'Xb3k9QzL0mW7pR2tY5vN8cF1hJ4dG6sA0eK3uI9oP2q';
  const Secret = Type.Object({ secret: Type.String() }, { examples: [{ secret: SECRET }] });
  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        operationId: 'listCredentials',
        summary: 'List server credentials (never their secrets)',
        params: ApiKeyParams,
        response: { 200: listOf(CredentialOut) },
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
        operationId: 'createCredential',
        summary: 'Create a server credential; the answer shows its secret, this once',
        params: ApiKeyParams,
        body: Type.Omit(CredentialInput, ['@id'], { examples: [{ name: 'server' }] }),
        response: {
          201: Type.Object(
            { '@id': Type.String(), name: Type.String(), secret: Type.String() },
            { examples: [{ ...CREDENTIAL_EXAMPLE, secret: SECRET }] },
          ),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createCredential(
            pool,
            request.params.apiKey,
            request.body.name,
            configAudit(request, ctx.clock, 201),
          ),
        ),
  );
  app.get(
    `${base}/:name`,
    {
      config: read,
      schema: {
        tags,
        operationId: 'getCredential',
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
        operationId: 'resetCredentialSecret',
        summary: 'Give a credential a new secret, shown this once',
        ...NO_BODY,
        params: NameParams,
        response: { 200: Secret },
      },
    },
    async (request) =>
      resetCredentialSecret(
        pool,
        request.params.apiKey,
        request.params.name,
        configAudit(request, ctx.clock),
      ),
  );
  app.delete(
    `${base}/:name`,
    {
      config: write,
      schema: {
        tags,
        operationId: 'deleteCredential',
        summary: 'Delete a server credential',
        params: NameParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      await deleteCredential(
        pool,
        request.params.apiKey,
        request.params.name,
        configAudit(request, ctx.clock),
      );
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
        operationId: 'getPushCredentials',
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
        operationId: 'replacePushCredentials',
        summary: 'Replace the APNs / FCM credentials ({} removes them); stored sealed',
        params: ApiKeyParams,
        body: Type.Object(
          {
            apple: Type.Optional(
              Type.Unknown({
                description:
                  '{keyPem, keyId, teamId, topic}: the APNs token key (.p8, PKCS#8 PEM) and its identifiers',
              }),
            ),
            google: Type.Optional(
              Type.Unknown({
                description: '{serviceAccount}: the FCM service account JSON (an object, or its text)',
              }),
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                apple: {
                  keyPem: '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n',
                  keyId: 'ABC123DEFG',
                  teamId: 'DEF123GHIJ',
                  topic: 'com.studio.spaceminers',
                },
              },
            ],
          },
        ),
        response: { 200: PushView },
      },
    },
    async (request) =>
      savePushCredentials(
        pool,
        request.params.apiKey,
        request.body,
        ctx.settings.secretKey,
        configAudit(request, ctx.clock),
      ),
  );
}
