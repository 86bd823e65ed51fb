// Embedded-store backups: PGlite's own archive of its data folder (dumpDataDir, a gzip tar), taken and restored only
// while no server holds the folder (its lock file says so), since the server keeps the one connection open.
import { createWriteStream, existsSync, openAsBlob, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PGlite } from '@electric-sql/pglite';
import { BackupError, writeAtomically } from './backup-files.js';
import { DataDirLockedError, lockDataDir } from './lock.js';

const PGDATA = 'pgdata';

/** Holds the folder's lock while `fn` runs; a running server (or another command) makes this refuse. */
async function withFolderLocked<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (e) {
    if (!(e instanceof DataDirLockedError)) throw e;
    throw new BackupError(
      `the data folder ${dataDir} is in use by a running Playbase process (pid ${e.pid}): stop the server first. ` +
        'The embedded store is backed up and restored only while no server runs on it',
    );
  }
  try {
    return await fn();
  } finally {
    release();
  }
}

const hasStore = (dir: string) => existsSync(dir) && readdirSync(dir).length > 0;

/**
 * Archives the store of `dataDir` into `file`. PGlite builds the archive in memory (about the size of the store,
 * compressed), which suits the embedded store's sizes; export files and the signing key are not in it.
 */
export async function backupEmbedded(dataDir: string, file: string): Promise<number> {
  const pgdata = join(dataDir, PGDATA);
  if (!hasStore(pgdata))
    throw new BackupError(`there is no embedded store in ${dataDir} (no ${PGDATA} folder)`);
  return withFolderLocked(dataDir, async () => {
    const db = await PGlite.create(pgdata);
    try {
      const archive = await db.dumpDataDir('gzip');
      const chunks = Readable.fromWeb(archive.stream() as WebReadableStream<Uint8Array>);
      return await writeAtomically(file, (path) =>
        pipeline(chunks, createWriteStream(path, { mode: 0o600 })),
      );
    } finally {
      await db.close();
    }
  });
}

/**
 * Restores `file` as the store of `dataDir`: unpacked by PGlite into a new folder beside the old one, which it
 * replaces only once PGlite has opened (and closed) it. Refuses a folder that holds a store unless `force`.
 */
export async function restoreEmbedded(dataDir: string, file: string, force: boolean): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await withFolderLocked(dataDir, async () => {
    const pgdata = join(dataDir, PGDATA);
    if (hasStore(pgdata) && !force) {
      throw new BackupError(
        `${dataDir} holds an embedded store already: restore into an empty data folder, or pass --force to replace it`,
      );
    }
    const restoring = join(dataDir, `${PGDATA}.restoring`);
    const replaced = join(dataDir, `${PGDATA}.replaced`);
    await rm(restoring, { recursive: true, force: true });
    try {
      const db = await PGlite.create(restoring, { loadDataDir: await openAsBlob(file) }).catch((e: Error) => {
        throw new BackupError(`${file} could not be restored: ${e.message}`);
      });
      await db.close();
      await rm(replaced, { recursive: true, force: true });
      if (existsSync(pgdata)) await rename(pgdata, replaced);
      await rename(restoring, pgdata);
      await rm(replaced, { recursive: true, force: true });
    } finally {
      await rm(restoring, { recursive: true, force: true });
    }
  });
}
