// `playbase rotate-key`: a new JWT signing key, written to the store the settings name (not over HTTP: it is
// what an operator runs on the server's machine; POST /restv2/auth/keys/rotate does it through a running server).
import type { Command } from 'commander';
import { createKeyRing } from '../../auth/keys.js';
import { loadSettings, SettingsError } from '../../settings.js';
import { openStore } from '../../store/db.js';
import { DataDirLockedError } from '../../store/lock.js';
import { migrate } from '../../store/migrate.js';
import { CliError, type CliIo } from '../io.js';

/** Rotates the signing key; stdout gets the new kid alone, so scripts can capture it. */
async function rotateKey(io: CliIo): Promise<void> {
  const settings = loadSettings(io.env);
  const store = await openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    statementTimeoutMs: settings.statementTimeoutMs,
  });
  try {
    // A store no server has opened yet has no tables: the server would migrate it on start as well.
    await migrate(store.pool);
    const kid = await createKeyRing(store.pool, Date.now).rotate();
    io.stdout.write(`${kid}\n`);
    io.stderr.write(
      `New JWTs are signed with key ${kid}. Running servers switch to it within 30 seconds; ` +
        'tokens signed by the previous key stay valid until they expire.\n',
    );
  } finally {
    await store.close();
  }
}

export function registerRotateKey(program: Command, io: CliIo): void {
  program
    .command('rotate-key')
    .summary('make a new JWT signing key in the store (run on the server machine)')
    .description(
      'make a new JWT signing key in the store (DATABASE_URL, else PLAYBASE_DATA_DIR) and print its key id; ' +
        'tokens signed by the previous key stay valid until they expire (at most one hour)',
    )
    .action(async () => {
      try {
        await rotateKey(io);
      } catch (e) {
        if (e instanceof SettingsError) throw new CliError(e.message);
        if (e instanceof DataDirLockedError)
          throw new CliError(
            `${e.message} (or rotate through the running server: POST /restv2/auth/keys/rotate)`,
          );
        throw e;
      }
    });
}
