// The export store interface (local folder or S3) and the file and game naming rules both backends share.
import { randomBytes } from 'node:crypto';

/** An export file's bytes: a stream, or any sync or async iterable of byte chunks. */
export type ExportBody = NodeJS.ReadableStream | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Where finished export files live and how a client gets them: one interface, two backends. */
export interface ExportStore {
  /** Stores the whole body under (game, file); replaces nothing half-written if the body fails. */
  write(game: string, file: string, body: ExportBody): Promise<{ bytes: number }>;
  /** An absolute URL that downloads the file without any other credential until `expiresAt` (epoch ms). */
  presign(game: string, file: string, expiresAt: number): Promise<string>;
  /** Deletes export files older than the retention; answers how many were deleted. */
  purgeExpired(now: number): Promise<number>;
  /** Releases connections (S3 client); the local store has nothing to release. */
  close?(): Promise<void>;
}

/** Presigned export URL validity: 24 hours (spec section 8). Files are kept exactly as long. */
export const EXPORT_URL_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** The export kinds of the spec: `mongo/export` (collections) and `data/export` (the data service). */
export type ExportKind = 'mongo' | 'data';

// `<kind>[-<tag>]-<13-digit epoch ms>-<16 hex>.ndjson.gz`: no slash, no dot segment, nothing a client can steer.
const FILE_NAME = /^([a-z][a-z0-9]{0,15}(?:-[a-z][a-z0-9]{0,15})?)-(\d{13})-([0-9a-f]{16})\.ndjson\.gz$/;
// Game keys become one folder (local) or one key segment (S3): letters, digits, '-' and '_' only.
const GAME_KEY = /^[A-Za-z0-9_-]{1,128}$/;
const TAG = /^[a-z][a-z0-9]{0,15}$/;

/**
 * A new, unguessable export file name that carries its creation time, e.g.
 * `mongo-live-1716508800000-9f86d081884c7d65.ndjson.gz`. `tag` (e.g. the stage) is optional.
 */
export function createExportFileName(kind: ExportKind, now: number, tag?: string): string {
  if (tag !== undefined && !TAG.test(tag)) throw new RangeError(`export file tag must match ${TAG}`);
  if (!Number.isSafeInteger(now) || now < 1e12 || now >= 1e13) throw new RangeError('now must be epoch ms');
  const prefix = tag === undefined ? kind : `${kind}-${tag}`;
  return `${prefix}-${now}-${randomBytes(8).toString('hex')}.ndjson.gz`;
}

/** True only for names this module generates; everything else (`..`, `a/b`, `%2e`) is refused. */
export function isExportFileName(file: string): boolean {
  return FILE_NAME.test(file);
}

/** The creation time (epoch ms) written into an export file name, or undefined for any other name. */
export function readExportFileTime(file: string): number | undefined {
  const match = FILE_NAME.exec(file);
  return match?.[2] === undefined ? undefined : Number(match[2]);
}

/** True for game keys that are safe as one path segment. */
export function isGameKey(game: string): boolean {
  return GAME_KEY.test(game);
}

/** Guards a store call made by server code: a bad name here is a programming error, not a client mistake. */
export function assertExportTarget(game: string, file: string): void {
  if (!isGameKey(game)) throw new RangeError(`export game key must match ${GAME_KEY}`);
  if (!isExportFileName(file)) throw new RangeError(`export file name must match ${FILE_NAME}`);
}
