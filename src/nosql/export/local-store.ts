// Embedded export store: files in the data folder, downloaded through HMAC-signed URLs served by the nosql role.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportErrors } from './errors.js';
import {
  assertExportTarget,
  EXPORT_URL_VALIDITY_MS,
  type ExportBody,
  type ExportStore,
  isExportFileName,
  isGameKey,
  readExportFileTime,
} from './store.js';

export interface LocalStoreOptions {
  /** The server's data folder; files go to `<dataDir>/exports/<game>/<file>`. */
  dataDir: string;
  /** Scheme, host and port the nosql role is reached at, e.g. `https://live.example.com` (no trailing path). */
  publicBaseUrl: string;
  /** HMAC key shared by every process that signs or serves links; at least 32 bytes. */
  signingKey: Uint8Array;
  /** How long a finished file is kept; default 24 h, the link validity. */
  retentionMs?: number;
}

/** The parts of a download URL, exactly as received (path parameters and query string). */
export interface DownloadParams {
  game: string;
  file: string;
  expires: string | number;
  signature: string;
}

export type DownloadCheck = 'ok' | 'expired' | 'bad-signature';

export interface OpenedDownload {
  stream: Readable;
  bytes: number;
  headers: Record<string, string>;
}

export interface LocalExportStore extends ExportStore {
  /** Checks a download URL and opens its file; throws EXPORT_LINK_* (403) or EXPORT_FILE_NOT_FOUND (404). */
  openDownload(params: DownloadParams, now: number): Promise<OpenedDownload>;
}

const MIN_KEY_BYTES = 32;
const SIGNATURE = /^[0-9a-f]{64}$/;
// A decimal without sign, exponent or leading zero, so that one expiry has exactly one spelling.
const EXPIRES = /^(?:0|[1-9]\d{0,15})$/;
const TEMP_FILE = /^\.(.+)\.[0-9a-f]{12}\.part$/;
const KEY_FILE = '.signing-key';

/** Hex HMAC-SHA256 over `v1\n{game}\n{file}\n{expires}`; the version prefix lets the format change later. */
export function signDownload(game: string, file: string, expires: number | string, key: Uint8Array): string {
  return createHmac('sha256', key).update(`v1\n${game}\n${file}\n${expires}`).digest('hex');
}

/**
 * Checks a download link. The signature covers game, file and expiry, so changing any of them, or
 * replaying one game's link under another game's path, answers 'bad-signature'.
 */
export function verifyDownload(params: DownloadParams, key: Uint8Array, now: number): DownloadCheck {
  const { game, file, signature } = params;
  const expires = typeof params.expires === 'number' ? String(params.expires) : params.expires;
  if (!isGameKey(game) || !isExportFileName(file)) return 'bad-signature';
  if (!EXPIRES.test(expires) || !SIGNATURE.test(signature)) return 'bad-signature';
  const expected = Buffer.from(signDownload(game, file, expires, key), 'hex');
  if (!timingSafeEqual(Buffer.from(signature, 'hex'), expected)) return 'bad-signature';
  return now < Number(expires) ? 'ok' : 'expired';
}

/** Response headers for serving an export file. */
function buildDownloadHeaders(file: string, bytes: number): Record<string, string> {
  return {
    'content-type': 'application/gzip',
    'content-length': String(bytes),
    'content-disposition': `attachment; filename="${file}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
}

/**
 * The embedded store's signing key: read from `<dataDir>/exports/.signing-key`, created (32 random bytes, mode
 * 0600) on first use so that links survive a restart. Creation is atomic: concurrent starters agree on one key.
 */
export async function loadSigningKey(dataDir: string): Promise<Buffer> {
  const root = join(dataDir, 'exports');
  const path = join(root, KEY_FILE);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${randomBytes(MIN_KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await rm(temp, { force: true });
  }
  const text = (await readFile(path, 'utf8')).trim();
  if (!/^(?:[0-9a-f]{2}){32,}$/.test(text))
    throw new Error(`${path} does not hold a hex key of 32 bytes or more`);
  return Buffer.from(text, 'hex');
}

export function createLocalStore(options: LocalStoreOptions): LocalExportStore {
  const root = join(options.dataDir, 'exports');
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const key = options.signingKey;
  const retentionMs = options.retentionMs ?? EXPORT_URL_VALIDITY_MS;
  if (key.byteLength < MIN_KEY_BYTES)
    throw new RangeError(`signingKey needs at least ${MIN_KEY_BYTES} bytes`);
  if (!/^https?:\/\/[^/?#]+$/.test(base)) throw new RangeError('publicBaseUrl must be http(s)://host[:port]');

  return {
    write: (game, file, body) => writeAtomically(root, game, file, body),
    async presign(game, file, expiresAt) {
      assertExportTarget(game, file);
      if (!Number.isSafeInteger(expiresAt) || expiresAt < 0)
        throw new RangeError('expiresAt must be epoch ms');
      const signature = signDownload(game, file, expiresAt, key);
      return `${base}/restv2/game/${game}/export/download/${file}?expires=${expiresAt}&signature=${signature}`;
    },
    purgeExpired: (now) => purgeFolder(root, now, retentionMs),
    async openDownload(params, now) {
      const check = verifyDownload(params, key, now);
      if (check === 'expired') throw exportErrors.linkExpired();
      if (check !== 'ok') throw exportErrors.linkInvalid();
      return openExportFile(root, params.game, params.file);
    },
  };
}

async function writeAtomically(
  root: string,
  game: string,
  file: string,
  body: ExportBody,
): Promise<{ bytes: number }> {
  assertExportTarget(game, file);
  const dir = join(root, game);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Same folder as the target so the rename is atomic: a reader sees the whole file or none.
  const temp = join(dir, `.${file}.${randomBytes(6).toString('hex')}.part`);
  let bytes = 0;
  async function* count() {
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.byteLength;
      yield buf;
    }
  }
  const out = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(count(), out);
    await rename(temp, join(dir, file));
  } catch (e) {
    // The stream opens its file asynchronously: wait until it is closed, or the temp file could appear after rm.
    if (!out.closed) await once(out, 'close').catch(() => {});
    await rm(temp, { force: true });
    throw e;
  }
  return { bytes };
}

async function openExportFile(root: string, game: string, file: string): Promise<OpenedDownload> {
  // game and file passed verifyDownload's patterns, so this path stays inside root.
  const handle = await open(join(root, game, file), 'r').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw exportErrors.fileGone(file);
    throw e;
  });
  try {
    const { size } = await handle.stat();
    return { stream: handle.createReadStream(), bytes: size, headers: buildDownloadHeaders(file, size) };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

async function purgeFolder(root: string, now: number, retentionMs: number): Promise<number> {
  let removed = 0;
  for (const game of await listEntries(root)) {
    if (!game.isDirectory() || !isGameKey(game.name)) continue;
    const dir = join(root, game.name);
    for (const entry of await listEntries(dir)) {
      if (!entry.isFile()) continue;
      const path = join(dir, entry.name);
      const finishedAt = await readFinishedTime(path, entry.name);
      if (finishedAt === undefined || now - finishedAt < retentionMs) continue;
      await rm(path, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * When a file stopped changing: its mtime (set by the last write, kept by the rename), never earlier than the
 * time in its name. Undefined for files this store did not write, which purge leaves alone.
 */
async function readFinishedTime(path: string, name: string): Promise<number | undefined> {
  const named = readExportFileTime(name);
  const temp = TEMP_FILE.exec(name);
  if (named === undefined && !(temp?.[1] !== undefined && isExportFileName(temp[1]))) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  return Math.max(info.mtimeMs, named ?? 0);
}

async function listEntries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
