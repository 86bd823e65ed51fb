// Routes of Cloud Code scripts: /restv2/game/{apiKey}/config/~scripts/** (configurator.cloudCode).
import { Type } from 'typebox';
import type { Context } from '../context.js';
import { errors } from '../errors.js';
import type { App } from '../route/app.js';
import { documented, listOf } from '../route/openapi.js';
import { configAudit } from './config-audit.js';
import { ScriptBody, ScriptFolderSchema, ScriptOut, ScriptShortCode } from './config-types.js';
import { ApiKeyParams, CONFIG_BASE, Message, need, paramsWith, SUCCESS, TAGS as tags } from './route-kit.js';
import { exportScripts, importScripts } from './script-import.js';
import { ZIP_LIMITS } from './script-zip.js';
import { deleteScript, getScript, listScripts, putScript } from './scripts.js';

const read = need('configurator.cloudCode', 1);
const write = need('configurator.cloudCode', 2);
const SCRIPTS = `${CONFIG_BASE}/~scripts`;
const SCRIPT = `${SCRIPTS}/:folder/:shortCode`;
const ScriptParams = paramsWith({ folder: ScriptFolderSchema, shortCode: ScriptShortCode });
/** Media types an import takes: what browsers and tools send for a .zip. */
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];

const SHA = '5f2b7c1e9a0d4c3b8e6f1a2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3';
const ScriptEntryOut = Type.Object(
  { folder: Type.String(), shortCode: Type.String(), size: Type.Integer(), sha256: Type.String() },
  { examples: [{ folder: 'event', shortCode: 'winRace', size: 61, sha256: SHA }] },
);
const Files = (description: string) => Type.Array(Type.String(), { description });
const ImportOut = Type.Object(
  {
    dryRun: Type.Boolean(),
    added: Files('files whose script is new'),
    changed: Files('files that replace a script'),
    deleted: Files('scripts the zip does not hold (deleted)'),
    unchanged: Files('files equal to their script'),
    refused: Type.Array(Type.Object({ file: Type.String(), reason: Type.String() }), {
      description: 'files not applied, and why; a script of the same name is kept',
    }),
  },
  {
    examples: [
      {
        dryRun: true,
        added: ['modules/UTILS.js'],
        changed: ['event/winRace.js'],
        deleted: ['response/LogEventResponse.js'],
        unchanged: [],
        refused: [{ file: 'rtScript/match.js', reason: 'folder rtScript is not supported' }],
      },
    ],
  },
);
const ZIP_CONTENT = (description: string) => ({
  description,
  content: {
    'application/zip': {
      schema: Type.String({ format: 'binary' }),
      example: '(zip of event/winRace.js, modules/UTILS.js, ...)',
    },
  },
});
// The zip is written by the handler, and the import body is bytes: both shown to the document only.
const Export = documented({ response: { 200: ZIP_CONTENT('the scripts: <folder>/<shortCode>.js') } });
const ImportBody = Type.Unknown({
  description: `a zip in the export layout (${ZIP_TYPES.join(', ')}; at most ${ZIP_LIMITS.zipBytes} bytes)`,
  examples: ['(zip of event/winRace.js, modules/UTILS.js, ...)'],
});

export function registerScriptRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    SCRIPTS,
    {
      config: read,
      schema: {
        tags,
        operationId: 'listScripts',
        summary: 'List Cloud Code scripts (no sources): folder, short code, size and SHA-256',
        params: ApiKeyParams,
        response: { 200: listOf(ScriptEntryOut) },
      },
    },
    async (request) => listScripts(pool, request.params.apiKey),
  );
  app.get(
    `${SCRIPTS}/export`,
    {
      config: { ...read, ...Export },
      schema: {
        tags,
        operationId: 'exportScripts',
        summary:
          'Download the scripts as a zip in the original platform layout (event/, request/, modules/...)',
        params: ApiKeyParams,
      },
    },
    async (request, reply) => {
      const zip = await exportScripts(pool, request.params.apiKey);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${request.params.apiKey}-scripts.zip"`)
        .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
    },
  );
  app.get(
    SCRIPT,
    {
      config: read,
      schema: {
        tags,
        operationId: 'getScript',
        summary: 'Read a script and its source',
        params: ScriptParams,
        response: { 200: ScriptOut },
      },
    },
    async (request) =>
      getScript(pool, request.params.apiKey, request.params.folder, request.params.shortCode),
  );
  app.put(
    SCRIPT,
    {
      config: write,
      schema: {
        tags,
        operationId: 'putScript',
        summary: 'Create or replace a script (syntax, what its name points at and sizes checked)',
        params: ScriptParams,
        body: ScriptBody,
        response: { 200: ScriptOut },
      },
    },
    async (request) => {
      const { apiKey, folder, shortCode } = request.params;
      return putScript(pool, apiKey, folder, shortCode, request.body.script, configAudit(request, ctx.clock));
    },
  );
  app.delete(
    SCRIPT,
    {
      config: write,
      schema: {
        tags,
        operationId: 'deleteScript',
        summary: 'Delete a script',
        params: ScriptParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      const { apiKey, folder, shortCode } = request.params;
      await deleteScript(pool, apiKey, folder, shortCode, configAudit(request, ctx.clock));
      return SUCCESS;
    },
  );
  registerImportRoute(app, ctx);
}

function registerImportRoute(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  // Its own plugin scope: the zip parser serves this route only.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      ZIP_TYPES,
      { parseAs: 'buffer', bodyLimit: ZIP_LIMITS.zipBytes },
      (_r, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (request, _payload, done) =>
      done(errors.unsupportedMediaType(request.headers['content-type'] ?? '(none)')),
    );
    (scope as App).post(
      `${SCRIPTS}/import`,
      {
        config: { ...write, ...documented({ body: ImportBody }) },
        schema: {
          tags,
          operationId: 'importScripts',
          summary:
            'Make the scripts those of a zip in the export layout (?dryRun=true: answer the changes only)',
          params: ApiKeyParams,
          querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
          consumes: ZIP_TYPES,
          response: { 200: ImportOut },
        },
      },
      async (request) => {
        const zip = request.body;
        if (!Buffer.isBuffer(zip) || zip.length === 0) {
          throw errors.badRequest(`send the zip as the body (${ZIP_TYPES.join(', ')})`);
        }
        const dryRun = request.query.dryRun === true;
        return importScripts(pool, request.params.apiKey, zip, dryRun, configAudit(request, ctx.clock));
      },
    );
  });
}
