// The `playbase` command: maintenance tasks run against the store named by the settings (rotate-key, backup, restore).
import { createKeyRing } from '../auth/keys.js';
import { loadSettings, SettingsError } from '../settings.js';
import { BackupError } from '../store/backup.js';
import { openStore } from '../store/db.js';
import { DataDirLockedError } from '../store/lock.js';
import { migrate } from '../store/migrate.js';
import { BACKUP_USAGE, backupCommand, restoreCommand, UsageError } from './backup-commands.js';

const USAGE = `usage: playbase <command>

commands:
  rotate-key   make a new JWT signing key and print its key id; tokens signed by the
               previous key stay valid until they expire (at most one hour)
${BACKUP_USAGE}

The store is the one the server uses: DATABASE_URL, else the data folder PLAYBASE_DATA_DIR.
`;

/** Rotates the signing key; stdout gets the new kid alone, so scripts can capture it. */
async function rotateKey(env: NodeJS.ProcessEnv): Promise<void> {
  const settings = loadSettings(env);
  const store = await openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    statementTimeoutMs: settings.statementTimeoutMs,
  });
  try {
    // A store no server has opened yet has no tables: the server would migrate it on start as well.
    await migrate(store.pool);
    const kid = await createKeyRing(store.pool, Date.now).rotate();
    process.stdout.write(`${kid}\n`);
    process.stderr.write(
      `New JWTs are signed with key ${kid}. Running servers switch to it within 30 seconds; ` +
        'tokens signed by the previous key stay valid until they expire.\n',
    );
  } finally {
    await store.close();
  }
}

const COMMANDS: Record<string, (env: NodeJS.ProcessEnv, args: string[]) => Promise<void>> = {
  'rotate-key': async (env, args) => {
    if (args.length > 0) throw new UsageError('rotate-key takes no arguments');
    await rotateKey(env);
  },
  backup: backupCommand,
  restore: restoreCommand,
};

function fail(message: string, code: number): never {
  process.stderr.write(`playbase: ${message}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const command = COMMANDS[name];
  if (!command) fail(`unknown command or arguments: ${argv.join(' ')}\n\n${USAGE}`, 2);
  try {
    await command(process.env, rest);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n\n${USAGE}`, 2);
    if (e instanceof SettingsError || e instanceof BackupError) fail(e.message, 1);
    if (e instanceof DataDirLockedError)
      fail(`${e.message} (or rotate through the running server: POST /restv2/auth/keys/rotate)`, 1);
    throw e;
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`playbase: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
