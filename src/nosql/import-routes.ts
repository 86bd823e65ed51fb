// Routes of the two imports, for one stage: the export file as downloaded, streamed into the stage in one transaction.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { Type } from 'typebox';
import type { AuthRequirement } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import { errors } from '../errors.js';
import { boundReceivingByRoute } from '../http/connections.js';
import type { App } from '../route/app.js';
import { openDataImport } from './import/data-import.js';
import { importErrors } from './import/errors.js';
import { asBodyError, bodyStream, readLines } from './import/lines.js';
import { openMongoImport } from './import/mongo-import.js';
import { type Importer, type ImportResult, runImport } from './import/run-import.js';
import { opId } from './route-support.js';
import type { GameScope, Stage } from './scope.js';
import { MAX_DOCUMENT_BYTES } from './wire.js';

// Spec: the Data Explorer moves a game's data in and out; reading it out takes level 1, writing it in level 2.
const DATA_EXPLORER_WRITE: { auth: AuthRequirement } = {
  auth: { credentials: ['jwt'], permission: ['nosql.dataExplorer', 2] },
};
const tags = ['exports'];
/** One line: twice a document's stored limit, since canonical extended JSON spells values out at length. */
const IMPORT_MAX_LINE_BYTES = 2 * MAX_DOCUMENT_BYTES;
/** The work after the last line (ranking whole leaderboards again) may take this long. */
const FINISH_TIMEOUT_MS = 10 * 60_000;

const GZIP = ['application/gzip', 'application/x-gzip'];
const NDJSON = ['application/x-ndjson'];
const mediaType = (request: FastifyRequest) =>
  String(request.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase() ?? '';

const GameParams = Type.Object({ gameApiKey: Type.String({ minLength: 1, maxLength: 128 }) });
const ImportBody = Type.Unknown({
  description:
    'the export file as downloaded (application/gzip), or its lines (application/x-ndjson): one JSON object a line, in extended JSON',
  examples: [
    '{"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}}\n',
  ],
});
const ImportOut = Type.Object(
  {
    imported: Type.Integer({ description: 'records written: documents (mongo) or items (data)' }),
    collections: Type.Record(Type.String(), Type.Integer(), {
      description: 'records written by collection (mongo) or data type (data)',
    }),
  },
  { examples: [{ imported: 1250, collections: { player: 1200, 'script.inventory': 50 } }] },
);

type Open = (pool: pg.Pool, scope: GameScope, clock: () => number) => Promise<Importer<{ line: number }>>;

/** Reads the request's body into the stage; the request's own receiving bound replaces the server-wide one. */
async function importBody(
  ctx: Context,
  open: Open,
  scope: GameScope,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const raw = request.body as Readable | undefined;
  const { maxBytes, requestTimeoutMs } = ctx.settings.imports;
  if (raw === undefined) throw importErrors.emptyBody();
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes) {
    reply.header('connection', 'close');
    throw errors.bodyTooLarge(maxBytes);
  }
  boundReceivingByRoute(request);
  const body = bodyStream(raw, {
    gzip: GZIP.includes(mediaType(request)),
    maxBytes,
    maxLineBytes: IMPORT_MAX_LINE_BYTES,
  });
  const timer = setTimeout(
    () => body.stop(errors.requestTimeout(ctx.settings.http.headersTimeoutMs, requestTimeoutMs)),
    Math.max(0, requestTimeoutMs - reply.elapsedTime),
  );
  try {
    const importer = await open(ctx.store.pool, scope, ctx.clock);
    const options = { timeoutMs: ctx.settings.statementTimeoutMs, finishTimeoutMs: FINISH_TIMEOUT_MS };
    const result: ImportResult = await runImport(
      ctx.store.pool,
      scope,
      importer,
      readLines(body.stream, IMPORT_MAX_LINE_BYTES),
      options,
    );
    if (body.received() === 0) throw importErrors.emptyBody();
    request.log.info({ game: scope.game, stage: scope.stage, imported: result.imported }, 'import finished');
    return result;
  } catch (e) {
    // The rest of the body is never read: the connection ends with the answer.
    if (!(raw as { complete?: boolean }).complete) reply.header('connection', 'close');
    throw asBodyError(e, body.received());
  } finally {
    clearTimeout(timer);
    // An import that failed before reading every line leaves the rest unread: stop piping it.
    body.stop();
  }
}

export function registerImportRoutes(app: App, ctx: Context, stage: Stage): void {
  // Its own plugin scope: these parsers hand the handler the body as a stream, for these two routes only.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser([...GZIP, ...NDJSON], (_request, payload, done) => done(null, payload));
    scope.addContentTypeParser('*', (request, _payload, done) =>
      done(importErrors.mediaType(mediaType(request))),
    );
    const importRoute = (kind: 'mongo' | 'data', open: Open, summary: string) =>
      (scope as App).post(
        `/restv2/game/:gameApiKey/${kind}/import`,
        {
          config: DATA_EXPLORER_WRITE,
          schema: {
            tags,
            operationId: opId({ stage }, kind === 'mongo' ? 'ImportDocuments' : 'ImportDataItems'),
            summary,
            params: GameParams,
            consumes: [...GZIP, ...NDJSON],
            // Read as a stream by the handler; declared here for the OpenAPI document, which it adds nothing to check.
            body: ImportBody,
            response: { 200: ImportOut },
          },
        },
        (request, reply) => importBody(ctx, open, { game: request.params.gameApiKey, stage }, request, reply),
      );
    importRoute(
      'mongo',
      openMongoImport,
      'Import a NoSQL export file (gzip NDJSON as downloaded, or NDJSON): all documents or none',
    );
    importRoute(
      'data',
      openDataImport,
      'Import a data-service export file (gzip NDJSON, or NDJSON): all items or none',
    );
  });
}
