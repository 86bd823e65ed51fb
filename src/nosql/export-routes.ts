// Routes of the two data exports and of the local store's downloads, for one stage (under its base URL).
import { Type } from 'typebox';
import type { AuthRequirement } from '../auth/authenticate.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import type { ExportKind } from './export/store.js';
import type { ExportJobs, ExportResult } from './export-jobs.js';
import type { Stage } from './scope.js';

// Spec: the export calls take the X-SVC-JWT of an account holding the Data Explorer permission.
const DATA_EXPLORER: { auth: AuthRequirement } = {
  auth: { credentials: ['jwt'], permission: ['nosql.dataExplorer', 1] },
};
const tags = ['exports'];

const GameParams = Type.Object({ gameApiKey: Type.String({ minLength: 1, maxLength: 128 }) });
const ExportOut = Type.Object(
  {
    url: Type.String({ description: 'presigned download URL; needs no other credential' }),
    expiresAt: Type.String({
      description: 'ISO 8601; the URL is refused (403) from then on, 24 hours after the export',
    }),
    count: Type.Integer({ description: 'documents (mongo) or items (data) in the file' }),
    bytes: Type.Integer({ description: 'size of the gzip file' }),
  },
  {
    examples: [
      {
        url: 'https://playbase.example/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/export/download/mongo-20261122T120000Z-3f9a.ndjson.gz?expires=1795521600&signature=9b1c2d3e4f5a6b7c',
        expiresAt: '2026-11-23T12:00:00.000Z',
        count: 1200,
        bytes: 48213,
      },
    ],
  },
);
// The file is streamed by the handler: its answer is given to the document only.
const Download = documented({
  response: {
    200: {
      description: 'the export file: gzip of newline-delimited JSON',
      content: {
        'application/gzip': {
          schema: Type.String({ format: 'binary' }),
          example: '(gzip of lines like {"collection": "player", "document": {...}})',
        },
      },
    },
  },
});
const DownloadParams = Type.Object({ game: Type.String(), file: Type.String() });
// Not validated by schema: a missing or doubled expires or signature is a changed link (403), not a bad request.
const DownloadQuery = Type.Object({
  expires: Type.Optional(Type.Unknown()),
  signature: Type.Optional(Type.Unknown()),
});
const text = (v: unknown) => (typeof v === 'string' ? v : '');

const wire = (r: ExportResult) => ({ ...r, expiresAt: new Date(r.expiresAt).toISOString() });

export function registerExportRoutes(app: App, jobs: ExportJobs, stage: Stage): void {
  const exportRoute = (kind: ExportKind, path: string, summary: string) =>
    app.get(
      path,
      {
        config: DATA_EXPLORER,
        schema: {
          tags,
          operationId: `${stage}Export${kind === 'mongo' ? 'Mongo' : 'Data'}`,
          summary,
          params: GameParams,
          response: { 200: ExportOut },
        },
      },
      async (request) => wire(await jobs.run(kind, request.params.gameApiKey, stage, request.log)),
    );
  exportRoute(
    'mongo',
    '/restv2/game/:gameApiKey/mongo/export',
    'Export the NoSQL collections (gzip NDJSON, canonical extended JSON; passwords, auth tokens and location left out)',
  );
  exportRoute(
    'data',
    '/restv2/game/:gameApiKey/data/export',
    'Export the data-service items (gzip NDJSON, canonical extended JSON)',
  );

  // The signed URL is the credential: no header is asked for, and any changed part answers 403.
  app.get(
    '/restv2/game/:game/export/download/:file',
    {
      config: Download,
      schema: {
        tags,
        operationId: `${stage}DownloadExport`,
        summary: 'Download an export file through its signed link (local export store)',
        params: DownloadParams,
        querystring: DownloadQuery,
      },
    },
    async (request, reply) => {
      const { game, file } = request.params;
      const query = request.query;
      const link = { game, file, expires: text(query.expires), signature: text(query.signature) };
      const opened = await jobs.openDownload(link);
      return reply.headers(opened.headers).send(opened.stream);
    },
  );
}
