// Entry point: settings → server → listen; prints where to reach it; shuts down cleanly on SIGTERM/SIGINT.
import type { createServer } from './server.js';
import { loadSettings, SettingsError } from './settings.js';
import { DataDirLockedError } from './store/lock.js';

function fail(message: string): never {
  process.stderr.write(`playbase: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let settings: ReturnType<typeof loadSettings>;
  try {
    settings = loadSettings();
  } catch (e) {
    if (e instanceof SettingsError) fail(e.message);
    throw e;
  }
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    // The store opens on its own thread (the embedded store takes seconds on a fresh folder: its files, then the
    // migrations) while the server's modules load here: the two overlap instead of following each other.
    const { openStore, storeOptionsOf } = await import('./store/db.js');
    const { migrate } = await import('./store/migrate.js');
    const opening = openStore(storeOptionsOf(settings));
    const migrated = opening.then(async (store) => {
      try {
        await migrate(store.pool);
      } catch (e) {
        await store.close().catch(() => {});
        throw e;
      }
      return store;
    });
    // A failure of one is reported once: the other's is observed here and dropped.
    migrated.catch(() => {});
    const [{ createServer: create }, store] = await Promise.all([import('./server.js'), migrated]);
    server = await create(settings, { store, migrated: true });
  } catch (e) {
    if (e instanceof DataDirLockedError) fail(e.message);
    throw e;
  }
  const log = server.app.log;
  const url = await server.listen();
  server.warm();
  log.info(
    { store: server.store.kind, roles: settings.roles },
    settings.tlsCertFile
      ? 'serving HTTPS'
      : 'serving plain HTTP: use it on loopback or behind a TLS-terminating proxy (set TLS_CERT_FILE and TLS_KEY_FILE for HTTPS)',
  );
  printBanner(settings, url, server.admin);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const timer = setTimeout(() => {
      log.error(
        { graceMs: settings.shutdownGraceMs },
        'requests still in flight after the grace period; exiting',
      );
      process.exit(1);
    }, settings.shutdownGraceMs);
    timer.unref();
    await server.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function printBanner(
  settings: ReturnType<typeof loadSettings>,
  url: string,
  admin: Awaited<ReturnType<typeof createServer>>['admin'],
): void {
  const base = settings.publicUrl || url;
  const local = settings.clusters.local;
  const lines = [
    '',
    `Playbase is up on ${url} (roles: ${settings.roles.join(', ')})`,
    `  auth      ${base}/restv2/auth`,
    `  config    ${base}/restv2`,
    `  nosql     live ${local?.liveNosql}   preview ${local?.previewNosql}`,
    `  docs      ${base}/docs   health ${base}/healthz   ready ${base}/readyz`,
  ];
  if (settings.roles.includes('config')) lines.push(`  console   ${base}/console/`);
  if (admin.generatedPassword) {
    lines.push(
      '',
      `Administrator account created: ${admin.username}`,
      `  password: ${admin.generatedPassword}`,
      '  (shown this once and never logged; set PLAYBASE_ADMIN_PASSWORD on first start to choose it)',
    );
  }
  lines.push(
    '',
    'Log in (get an access token):',
    `  curl -u '${admin.username}:<password>' ${base}/restv2/auth/user`,
    '',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((e) => {
  process.stderr.write(`playbase: failed to start: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
