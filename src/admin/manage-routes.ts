// Routes of the Manage section: /restv2/game/{apiKey}/manage/{screens,snippets,queries}[/{shortCode}].
import { type TObject, type TProperties, Type } from 'typebox';
import { principalOf } from '../auth/authenticate.js';
import type { Level } from '../auth/permissions.js';
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf } from '../route/openapi.js';
import {
  createItem,
  deleteItem,
  getItem,
  listItems,
  type ManageKind,
  updateItem,
  type WriteMeta,
} from './manage.js';

const TEXT = 1_000_000;
const ShortCode = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Groups = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
const JsonObject = Type.Record(Type.String(), Type.Unknown());

const screenFields = { name: Name, template: Type.String({ maxLength: TEXT }), groups: Groups };
const FIELDS: Record<ManageKind, TProperties> = {
  screen: screenFields,
  snippet: {
    ...screenFields,
    script: Type.String({ maxLength: TEXT }),
    scriptData: JsonObject,
  },
  query: {
    name: Name,
    collection: Type.String({ minLength: 1, maxLength: 128 }),
    query: JsonObject,
    fields: JsonObject,
    sort: JsonObject,
    limit: Type.Integer({ minimum: 1, maximum: 10_000 }),
    groups: Groups,
  },
};
// What a create must name; the rest takes defaults (empty template, no groups...).
const REQUIRED: Record<ManageKind, string[]> = {
  screen: ['shortCode', 'name'],
  snippet: ['shortCode', 'name'],
  query: ['shortCode', 'name', 'collection'],
};

const ROUTES: { kind: ManageKind; path: string; permission: string; noun: string; nouns: string }[] = [
  { kind: 'screen', path: 'screens', permission: 'manage.screens', noun: 'Screen', nouns: 'Screens' },
  { kind: 'snippet', path: 'snippets', permission: 'manage.snippets', noun: 'Snippet', nouns: 'Snippets' },
  { kind: 'query', path: 'queries', permission: 'manage.queries', noun: 'Query', nouns: 'Queries' },
];

const SCREEN_EXAMPLE = {
  shortCode: 'players',
  name: 'Players',
  template: '<gs-query name="topPlayers"/>',
  groups: ['Support'],
};
const EXAMPLES: Record<ManageKind, Record<string, unknown>> = {
  screen: SCREEN_EXAMPLE,
  snippet: {
    ...SCREEN_EXAMPLE,
    shortCode: 'banPlayer',
    name: 'Ban a player',
    template: '<p>{{playerId}} is banned</p>',
    script: 'Spark.getPlayer(playerId).setPrivateData("banned", true);',
    scriptData: {},
  },
  query: {
    shortCode: 'topPlayers',
    name: 'Top players',
    collection: 'player',
    query: { currency1: { $gt: 100 } },
    fields: { displayName: 1, currency1: 1 },
    sort: { currency1: -1 },
    limit: 20,
    groups: ['Support'],
  },
};

function outSchema(kind: ManageKind): TObject {
  return Type.Object({ shortCode: Type.String(), ...FIELDS[kind] }, { examples: [EXAMPLES[kind]] });
}

/** The body of a create (required fields enforced) or of an update (shortCode optional, must match the path). */
function bodySchema(kind: ManageKind, create: boolean): TObject {
  const props: TProperties = { shortCode: ShortCode, ...FIELDS[kind] };
  const required = create ? REQUIRED[kind] : REQUIRED[kind].filter((k) => k !== 'shortCode');
  const shaped = Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)]),
  );
  const { shortCode, ...rest } = EXAMPLES[kind];
  return Type.Object(shaped, {
    additionalProperties: false,
    examples: [create ? { shortCode, ...rest } : rest],
  });
}

const ApiKey = Type.String({ minLength: 1, maxLength: 128 });

export function registerManageRoutes(app: App, ctx: Context): void {
  for (const route of ROUTES) registerKind(app, ctx, route);
}

function registerKind(
  app: App,
  ctx: Context,
  { kind, path, permission, noun, nouns }: (typeof ROUTES)[number],
): void {
  const { pool } = ctx.store;
  const base = `/restv2/game/:apiKey/manage/${path}`;
  const tags = ['manage'];
  const auth = (level: Level) => ({ auth: { permission: [permission, level] as [string, Level] } });
  const write = (level: Level) => ({ ...auth(level), audit: 'manage' as const, auditInline: true });
  const Params = Type.Object({ apiKey: ApiKey });
  const ItemParams = Type.Object({ apiKey: ApiKey, shortCode: Type.String({ minLength: 1, maxLength: 64 }) });
  const Out = outSchema(kind);
  const meta = (request: Parameters<typeof principalOf>[0]): WriteMeta => {
    const who = principalOf(request);
    return { actor: who.username, credential: who.kind, requestId: request.id, at: ctx.clock() };
  };

  app.get(
    base,
    {
      config: auth(1),
      schema: {
        tags,
        operationId: `list${nouns}`,
        summary: `List the ${path}`,
        params: Params,
        response: { 200: listOf(Out) },
      },
    },
    async (request) => listItems(pool, request.params.apiKey, kind),
  );
  app.post(
    base,
    {
      config: write(2),
      schema: {
        tags,
        operationId: `create${noun}`,
        summary: `Create a ${kind}`,
        params: Params,
        body: bodySchema(kind, true),
        response: { 201: Out },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createItem(pool, request.params.apiKey, kind, request.body, meta(request))),
  );
  app.get(
    `${base}/:shortCode`,
    {
      config: auth(1),
      schema: {
        tags,
        operationId: `get${noun}`,
        summary: `Read a ${kind}`,
        params: ItemParams,
        response: { 200: Out },
      },
    },
    async (request) => getItem(pool, request.params.apiKey, kind, request.params.shortCode),
  );
  app.put(
    `${base}/:shortCode`,
    {
      config: write(2),
      schema: {
        tags,
        operationId: `replace${noun}`,
        summary: `Replace a ${kind}`,
        params: ItemParams,
        body: bodySchema(kind, false),
        response: { 200: Out },
      },
    },
    async (request) =>
      updateItem(pool, request.params.apiKey, kind, request.params.shortCode, request.body, meta(request)),
  );
  app.delete(
    `${base}/:shortCode`,
    {
      config: write(2),
      schema: {
        tags,
        operationId: `delete${noun}`,
        summary: `Delete a ${kind}`,
        params: ItemParams,
        response: { 200: Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] }) },
      },
    },
    async (request) => {
      await deleteItem(pool, request.params.apiKey, kind, request.params.shortCode, meta(request));
      return { message: 'SUCCESS' };
    },
  );
}
