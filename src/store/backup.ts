// Backup and restore of the whole store, for the `playbase backup` and `restore` commands: pg_dump's custom format
// on PostgreSQL, PGlite's data-folder archive on the embedded store (with no server running on it).
import { existsSync } from 'node:fs';
import { backupEmbedded, restoreEmbedded } from './backup-embedded.js';
import { BackupError, magicOf } from './backup-files.js';
import { backupPostgres, restorePostgres } from './backup-postgres.js';

export { BackupError } from './backup-files.js';

/** Which store: DATABASE_URL (and a schema, for tests), else the embedded store in the data folder. */
export interface StoreTarget {
  databaseUrl?: string | undefined;
  schema?: string | undefined;
  dataDir: string;
}

export interface BackupOptions {
  /** Backup: write over an existing file. Restore: replace a store that is not empty. */
  force?: boolean;
  /** The environment pg_dump and pg_restore run with (and are found on the PATH of). */
  env?: NodeJS.ProcessEnv;
}

export interface BackupResult {
  store: 'postgres' | 'embedded';
  file: string;
  bytes: number;
}

/** Backs up the whole store into `file` (mode 0600: it holds every account and game). */
export async function backupStore(
  target: StoreTarget,
  file: string,
  options: BackupOptions = {},
): Promise<BackupResult> {
  if (existsSync(file) && !options.force)
    throw new BackupError(`${file} exists already: choose another name, or pass --force to write over it`);
  if (target.databaseUrl) {
    const bytes = await backupPostgres(target.databaseUrl, target.schema, file, options.env ?? process.env);
    return { store: 'postgres', file, bytes };
  }
  return { store: 'embedded', file, bytes: await backupEmbedded(target.dataDir, file) };
}

/** Restores `file` into the store, which must be empty unless `force`. */
export async function restoreStore(
  target: StoreTarget,
  file: string,
  options: BackupOptions = {},
): Promise<void> {
  const magic = await magicOf(file);
  const isDump = magic.toString('latin1') === 'PGDMP';
  const isGzip = magic[0] === 0x1f && magic[1] === 0x8b;
  if (target.databaseUrl) {
    if (!isDump) {
      throw new BackupError(
        `${file} is not a pg_dump archive (custom format)${isGzip ? ': it looks like a backup of the embedded store, which restores only with DATABASE_URL unset' : ''}`,
      );
    }
    return restorePostgres(
      target.databaseUrl,
      target.schema,
      file,
      options.force === true,
      options.env ?? process.env,
    );
  }
  if (!isGzip) {
    throw new BackupError(
      `${file} is not a backup of the embedded store (a gzip archive)${isDump ? ': it is a pg_dump archive, which restores into PostgreSQL (set DATABASE_URL)' : ''}`,
    );
  }
  return restoreEmbedded(target.dataDir, file, options.force === true);
}
