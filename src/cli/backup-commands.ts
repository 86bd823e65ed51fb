// The `playbase backup FILE` and `restore FILE` commands: the whole store, through src/store/backup.ts.
import { loadSettings } from '../settings.js';
import { backupStore, restoreStore } from '../store/backup.js';

export const BACKUP_USAGE = `  backup FILE [--force]
               write the whole store into FILE: a pg_dump archive (custom format) on
               PostgreSQL, while the server runs; the embedded store's archive (gzip) with
               the server stopped. --force writes over an existing FILE
  restore FILE [--force]
               restore FILE into the store, which must be empty (a new database, or a data
               folder without a store; stop the server of the embedded store first).
               --force replaces what the store holds
`;

/** A mistake in the command line itself (exit status 2). */
export class UsageError extends Error {}

function fileAndForce(command: string, args: string[]): { file: string; force: boolean } {
  const force = args.includes('--force');
  const rest = args.filter((a) => a !== '--force');
  const [file] = rest;
  if (rest.length !== 1 || file === undefined || file.startsWith('-'))
    throw new UsageError(`${command} takes one FILE and, optionally, --force`);
  return { file, force };
}

const targetOf = (env: NodeJS.ProcessEnv) => {
  const settings = loadSettings(env);
  return { databaseUrl: settings.databaseUrl, dataDir: settings.dataDir };
};

export async function backupCommand(env: NodeJS.ProcessEnv, args: string[]): Promise<void> {
  const { file, force } = fileAndForce('backup', args);
  const result = await backupStore(targetOf(env), file, { force, env });
  process.stderr.write(`Backed up the ${result.store} store into ${file} (${result.bytes} bytes).\n`);
}

export async function restoreCommand(env: NodeJS.ProcessEnv, args: string[]): Promise<void> {
  const { file, force } = fileAndForce('restore', args);
  const target = targetOf(env);
  await restoreStore(target, file, { force, env });
  const where = target.databaseUrl ? 'the database of DATABASE_URL' : `the data folder ${target.dataDir}`;
  process.stderr.write(`Restored ${file} into ${where}. Start the server to use it.\n`);
}
