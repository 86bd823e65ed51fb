// The `playbase` command: maintenance tasks run against the store named by the settings (rotate-key).
import { createKeyRing } from '../auth/keys.js';
import { loadSettings, SettingsError } from '../settings.js';
import { openStore } from '../store/db.js';
import { DataDirLockedError } from '../store/lock.js';
import { migrate } from '../store/migrate.js';

const USAGE = `usage: playbase <command>

commands:
  rotate-key   make a new JWT signing key and print its key id; tokens signed by the
               previous key stay valid until they expire (at most one hour)

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

const COMMANDS: Record<string, (env: NodeJS.ProcessEnv) => Promise<void>> = {
  'rotate-key': rotateKey,
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
  if (!command || rest.length > 0) fail(`unknown command or arguments: ${argv.join(' ')}\n\n${USAGE}`, 2);
  try {
    await command(process.env);
  } catch (e) {
    if (e instanceof SettingsError) fail(e.message, 1);
    if (e instanceof DataDirLockedError)
      fail(`${e.message} (or rotate through the running server: POST /restv2/auth/keys/rotate)`, 1);
    throw e;
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`playbase: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
