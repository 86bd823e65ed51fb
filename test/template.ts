// The embedded-store template: a PGlite folder with every migration applied, made once and cloned per test.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/db.js';
import { listMigrations, migrate } from '../src/store/migrate.js';

export function templateDir(): string {
  const hash = createHash('sha256');
  for (const m of listMigrations()) hash.update(m.name).update(m.sql);
  return join(tmpdir(), `playbase-template-${hash.digest('hex').slice(0, 16)}`);
}

/** Creates the template when it does not exist yet (migrations changed, or first run on this machine). */
export async function ensureTemplate(): Promise<string> {
  const dir = templateDir();
  if (existsSync(join(dir, 'pgdata'))) return dir;
  const building = mkdtempSync(join(tmpdir(), 'playbase-template-build-'));
  const store = await openStore({ dataDir: building, statementTimeoutMs: 10_000 });
  await migrate(store.pool);
  await store.close();
  try {
    renameSync(building, dir);
  } catch {
    // Another worker finished first: theirs is as good as ours.
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/** A fresh data folder holding a copy of the template. */
export function cloneTemplate(): string {
  const target = mkdtempSync(join(tmpdir(), 'playbase-test-'));
  cpSync(join(templateDir(), 'pgdata'), join(target, 'pgdata'), { recursive: true });
  return target;
}
