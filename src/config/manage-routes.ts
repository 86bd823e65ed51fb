// Routes of the Manage section: /restv2/game/{apiKey}/manage/{screens,snippets,queries}[/{shortCode}].
import { type TObject, type TProperties, Type } from 'typebox';
import type { Level } from '../auth/permissions.js';
import type { Context } from '../context.js';
import type { App } from '../http/app.js';
import { principalOf } from '../http/authenticate.js';
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

const ROUTES: { kind: ManageKind; path: string; permission: string }[] = [
  { kind: 'screen', path: 'screens', permission: 'manage.screens' },
  { kind: 'snippet', path: 'snippets', permission: 'manage.snippets' },
  { kind: 'query', path: 'queries', permission: 'manage.queries' },
];

function outSchema(kind: ManageKind): TObject {
  return Type.Object({ shortCode: Type.String(), ...FIELDS[kind] });
}

/** The body of a create (required fields enforced) or of an update (shortCode optional, must match the path). */
function bodySchema(kind: ManageKind, create: boolean): TObject {
  const props: TProperties = { shortCode: ShortCode, ...FIELDS[kind] };
  const required = create ? REQUIRED[kind] : REQUIRED[kind].filter((k) => k !== 'shortCode');
  const shaped = Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)]),
  );
  return Type.Object(shaped, { additionalProperties: false });
}

const ApiKey = Type.String({ minLength: 1, maxLength: 128 });

export function registerManageRoutes(app: App, ctx: Context): void {
  for (const route of ROUTES) registerKind(app, ctx, route);
}

function registerKind(
  app: App,
  ctx: Context,
  { kind, path, permission }: { kind: ManageKind; path: string; permission: string },
): void {
  const { pool } = ctx.store;
  const base = `/restv2/game/:apiKey/manage/${path}`;
  const tags = ['manage'];
  const auth = (level: Level) => ({ auth: { permission: [permission, level] as [string, Level] } });
  const write = (level: Level) => ({ ...auth(level), auditInline: true });
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
      schema: { tags, summary: `List the ${path}`, params: Params, response: { 200: Type.Array(Out) } },
    },
    async (request) => listItems(pool, request.params.apiKey, kind),
  );
  app.post(
    base,
    {
      config: write(2),
      schema: {
        tags,
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
      schema: { tags, summary: `Read a ${kind}`, params: ItemParams, response: { 200: Out } },
    },
    async (request) => getItem(pool, request.params.apiKey, kind, request.params.shortCode),
  );
  app.put(
    `${base}/:shortCode`,
    {
      config: write(2),
      schema: {
        tags,
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
        summary: `Delete a ${kind}`,
        params: ItemParams,
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async (request) => {
      await deleteItem(pool, request.params.apiKey, kind, request.params.shortCode, meta(request));
      return { message: 'SUCCESS' };
    },
  );
}
