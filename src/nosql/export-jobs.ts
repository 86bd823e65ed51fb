// Runs the two exports of the nosql role: picks the export store from the settings, writes the file, answers a link.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import type { Settings } from '../settings.js';
import { readDataItemLines } from './data-export.js';
import { exportErrors } from './export/errors.js';
import {
  createLocalStore,
  type DownloadParams,
  type LocalExportStore,
  loadSigningKey,
  type OpenedDownload,
} from './export/local-store.js';
import type { ExportLine, ExportLogger } from './export/ndjson-writer.js';
import { writeExport } from './export/ndjson-writer.js';
import { createS3Store } from './export/s3-store.js';
import {
  createExportFileName,
  EXPORT_URL_VALIDITY_MS,
  type ExportKind,
  type ExportStore,
} from './export/store.js';
import { readCollectionLines } from './mongo-export.js';
import type { Stage } from './scope.js';

export interface ExportResult {
  url: string;
  /** Epoch ms after which the URL is refused. */
  expiresAt: number;
  /** Lines written: documents (mongo) or items (data). */
  count: number;
  /** Size of the gzip file. */
  bytes: number;
}

export interface ExportJobs {
  /** Writes one export of the game's stage and answers its link; concurrent calls for the same export share one run. */
  run(kind: ExportKind, game: string, stage: Stage, logger: ExportLogger): Promise<ExportResult>;
  /** The local store's download check and file; 404 EXPORT_FILE_NOT_FOUND when exports go to S3. */
  openDownload(params: DownloadParams): Promise<OpenedDownload>;
  /** Deletes export files past their retention; 0 when no store was ever set up here. */
  purge(): Promise<number>;
  close(): Promise<void>;
}

/** The stage base URL of endpoint discovery (the local cluster's template, filled in), where download links point. */
export function stageBaseUrl(settings: Settings, game: string, stage: Stage): string {
  const cluster = settings.clusters.local;
  const template = cluster
    ? stage === 'live'
      ? cluster.liveNosql
      : cluster.previewNosql
    : `${settings.publicUrl}/${stage}`;
  return template.replaceAll('{apiKey}', game).replaceAll('{stage}', stage).replace(/\/+$/, '');
}

async function openExportStore(ctx: Context): Promise<ExportStore> {
  const s = ctx.settings.exports;
  if (s.s3Bucket) {
    return createS3Store({
      bucket: s.s3Bucket,
      region: s.s3Region,
      ...(s.s3Endpoint ? { endpoint: s.s3Endpoint } : {}),
      forcePathStyle: s.s3ForcePathStyle,
      prefix: s.s3Prefix,
      clock: ctx.clock,
    });
  }
  const dataDir = ctx.settings.dataDir;
  const signingKey = s.signingKey ? Buffer.from(s.signingKey, 'hex') : await loadSigningKey(dataDir);
  // Links are re-based on the stage base URL below; the origin given here only has to be well formed.
  return createLocalStore({ dataDir, publicBaseUrl: new URL(ctx.settings.publicUrl).origin, signingKey });
}

function isLocal(store: ExportStore): store is LocalExportStore {
  return typeof (store as Partial<LocalExportStore>).openDownload === 'function';
}

export function createExportJobs(ctx: Context): ExportJobs {
  let opening: Promise<ExportStore> | undefined;
  // Opened on first use: the embedded default then creates its folder and key only once exports are used.
  const store = () => {
    opening ??= openExportStore(ctx).catch((e: unknown) => {
      opening = undefined;
      throw e;
    });
    return opening;
  };
  const running = new Map<string, Promise<ExportResult>>();

  async function runOnce(
    kind: ExportKind,
    game: string,
    stage: Stage,
    logger: ExportLogger,
  ): Promise<ExportResult> {
    const target = await store();
    await target.purgeExpired(ctx.clock()).catch(() => 0);
    const file = createExportFileName(kind, ctx.clock(), stage);
    const source: AsyncIterable<ExportLine> =
      kind === 'mongo'
        ? readCollectionLines(ctx.store.pool, game, stage)
        : readDataItemLines(ctx.store.pool, game, stage, ctx.clock());
    logger.info({ game, stage, kind, file }, 'export started');
    const written = await writeExport({ source, store: target, game, file, logger });
    const expiresAt = ctx.clock() + EXPORT_URL_VALIDITY_MS;
    let url = await target.presign(game, file, expiresAt);
    if (isLocal(target)) {
      const signed = new URL(url);
      url = `${stageBaseUrl(ctx.settings, game, stage)}${signed.pathname}${signed.search}`;
    }
    return { url, expiresAt, count: written.lines, bytes: written.bytes };
  }

  /** runOnce, counted: one job of the metrics per file written (or failed), shared calls not counted again. */
  async function runMeasured(kind: ExportKind, game: string, stage: Stage, logger: ExportLogger) {
    const { exportDuration, exportsRunning } = ctx.metrics;
    const end = exportDuration.startTimer({ kind });
    exportsRunning.inc({ kind });
    try {
      const result = await runOnce(kind, game, stage, logger);
      end({ outcome: 'succeeded' });
      return result;
    } catch (e) {
      end({ outcome: 'failed' });
      throw e;
    } finally {
      exportsRunning.dec({ kind });
    }
  }

  return {
    run(kind, game, stage, logger) {
      // A second click while an export runs gets the same file instead of a second full read of the game.
      const key = `${kind}\n${game}\n${stage}`;
      const existing = running.get(key);
      if (existing) return existing;
      const job = runMeasured(kind, game, stage, logger).finally(() => running.delete(key));
      running.set(key, job);
      return job;
    },
    async openDownload(params) {
      const target = await store();
      if (!isLocal(target)) throw exportErrors.fileGone(params.file);
      return target.openDownload(params, ctx.clock());
    },
    async purge() {
      const s = ctx.settings.exports;
      if (!opening && !s.s3Bucket && !existsSync(join(ctx.settings.dataDir, 'exports'))) return 0;
      return (await store()).purgeExpired(ctx.clock());
    },
    async close() {
      const open = opening;
      opening = undefined;
      if (open) await (await open.catch(() => undefined))?.close?.();
    },
  };
}
