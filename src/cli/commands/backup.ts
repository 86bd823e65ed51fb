// `playbase backup FILE` and `playbase restore FILE`: the whole store the settings name (DATABASE_URL, else
// PLAYBASE_DATA_DIR), through src/store/backup.ts. Run on the server's machine, not over HTTP.
import type { Command } from 'commander';
import { loadSettings, SettingsError } from '../../settings.js';
import { BackupError, backupStore, restoreStore } from '../../store/backup.js';
import { CliError, type CliIo, globals, print } from '../io.js';

const targetOf = (io: CliIo) => {
  const settings = loadSettings(io.env);
  return { databaseUrl: settings.databaseUrl, dataDir: settings.dataDir };
};

/** The store's refusals (a running server, a non-empty target, a missing pg_dump) are one line, exit 1. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof SettingsError || e instanceof BackupError) throw new CliError(e.message);
    throw e;
  }
}

export function registerBackup(program: Command, io: CliIo): void {
  program
    .command('backup')
    .summary('write the whole store into a file')
    .description(
      'write the whole store into FILE: a pg_dump archive (custom format) on PostgreSQL, while the server ' +
        "runs; the embedded store's archive (gzip) with the server stopped",
    )
    .argument('<file>', 'the backup file to write')
    .option('--force', 'write over an existing FILE')
    .action(async (file: string, options: { force?: boolean }, cmd: Command) => {
      const result = await refusing(() =>
        backupStore(targetOf(io), file, { force: options.force === true, env: io.env }),
      );
      io.stderr.write(`Backed up the ${result.store} store into ${file} (${result.bytes} bytes).\n`);
      if (globals(cmd).json) print(io, globals(cmd), result, () => '');
    });
  program
    .command('restore')
    .summary('restore a backup file into an empty store')
    .description(
      'restore FILE into the store, which must be empty (a new database, or a data folder without a store; ' +
        'stop the server of the embedded store first)',
    )
    .argument('<file>', 'the backup file to read')
    .option('--force', 'replace what the store holds')
    .action(async (file: string, options: { force?: boolean }) => {
      const target = targetOf(io);
      await refusing(() => restoreStore(target, file, { force: options.force === true, env: io.env }));
      const where = target.databaseUrl ? 'the database of DATABASE_URL' : `the data folder ${target.dataDir}`;
      io.stderr.write(`Restored ${file} into ${where}. Start the server to use it.\n`);
    });
}
