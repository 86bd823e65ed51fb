// Streams export lines as gzip NDJSON into an export store, in bounded memory, logging progress.
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ExportStore } from './store.js';

/** A document of a NoSQL collection; `document` is canonical extended JSON (`EJSON.serialize(doc, {relaxed: false})`). */
export interface CollectionLine {
  collection: string;
  document: unknown;
}

/** An item of the data service; `data` is canonical extended JSON; the data service may add fields (version, ttl). */
export interface DataItemLine {
  type: string;
  id: string;
  data: unknown;
  [field: string]: unknown;
}

export type ExportLine = CollectionLine | DataItemLine;

/** The part of a pino logger the writer uses. */
export interface ExportLogger {
  info(obj: Record<string, unknown>, msg: string): void;
}

export interface WriteExportOptions {
  source: AsyncIterable<ExportLine> | Iterable<ExportLine>;
  store: ExportStore;
  game: string;
  file: string;
  logger: ExportLogger;
  /** Log `exported N documents` every this many lines; default 100,000. */
  progressEvery?: number;
  /** zlib level 1-9; default 6, the zlib default. */
  gzipLevel?: number;
}

// Lines are joined into chunks of about this many characters: one write per line would cost more than the gzip.
const BATCH_CHARS = 64 * 1024;

/**
 * Writes one export file: each line a JSON object and `\n`, gzip-compressed, streamed into the store. The
 * source is pulled only as fast as the store takes the bytes (stream backpressure), so memory stays bounded
 * whatever the number of documents.
 */
export async function writeExport(options: WriteExportOptions): Promise<{ lines: number; bytes: number }> {
  const { store, game, file, logger } = options;
  const progressEvery = options.progressEvery ?? 100_000;
  if (!Number.isSafeInteger(progressEvery) || progressEvery < 1)
    throw new RangeError('progressEvery must be >= 1');
  let lines = 0;
  const countLine = () => {
    lines += 1;
    if (lines % progressEvery === 0) logger.info({ game, file, lines }, `exported ${lines} documents`);
  };
  const gzip = createGzip({ level: options.gzipLevel ?? 6 });
  const producing = pipeline(encodeLines(options.source, countLine), gzip);
  const writing = store.write(game, file, gzip).catch((e: unknown) => {
    // Unblocks the producer, which would otherwise wait forever on a gzip nobody reads.
    gzip.destroy(e instanceof Error ? e : new Error(String(e)));
    throw e;
  });
  const [produced, written] = await Promise.allSettled([producing, writing]);
  if (produced.status === 'rejected' && !isPrematureClose(produced.reason)) throw produced.reason;
  if (written.status === 'rejected') throw written.reason;
  if (produced.status === 'rejected') throw produced.reason;
  logger.info({ game, file, lines, bytes: written.value.bytes }, 'export finished');
  return { lines, bytes: written.value.bytes };
}

async function* encodeLines(
  source: AsyncIterable<ExportLine> | Iterable<ExportLine>,
  countLine: () => void,
): AsyncGenerator<Buffer> {
  let batch = '';
  for await (const line of source) {
    batch += `${serializeLine(line)}\n`;
    countLine();
    if (batch.length >= BATCH_CHARS) {
      yield Buffer.from(batch);
      batch = '';
    }
  }
  if (batch.length > 0) yield Buffer.from(batch);
}

/** One line of the file; refuses shapes a reader could not tell apart (a caller's bug, not a client's). */
export function serializeLine(line: ExportLine): string {
  const isCollection = typeof (line as Partial<CollectionLine>).collection === 'string';
  const isItem = typeof (line as Partial<DataItemLine>).type === 'string';
  if (isCollection === isItem) throw new TypeError('an export line names either a collection or a type');
  return JSON.stringify(line);
}

function isPrematureClose(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
}
