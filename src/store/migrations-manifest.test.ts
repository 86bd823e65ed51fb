// Released migrations never change: each is recorded in migrations/manifest.json with its SHA-256, and a new
// migration must be added to it (npm run migrations:manifest), which only ever adds entries.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listMigrations } from './migrate.js';

const DIR = resolve(import.meta.dirname, 'migrations');
const SCRIPT = resolve(import.meta.dirname, '../../scripts/migrations-manifest.mjs');
const readManifest = (dir = DIR): Record<string, string> =>
  JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const sha256 = (sql: string) => createHash('sha256').update(sql.replaceAll('\r\n', '\n')).digest('hex');

describe('migration manifest', () => {
  const manifest = readManifest();
  const migrations = listMigrations(DIR);

  it('every migration the runner applies is in the manifest (add it with npm run migrations:manifest)', () => {
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations.map((m) => m.name).filter((name) => !(name in manifest))).toEqual([]);
  });

  it('every released migration still exists, with its content unchanged', () => {
    const byName = new Map(migrations.map((m) => [m.name, m.sql]));
    const changed = Object.entries(manifest)
      .filter(([name, hash]) => byName.get(name) === undefined || sha256(byName.get(name)!) !== hash)
      .map(([name]) => name);
    expect(changed).toEqual([]);
  });

  it('versions are unique and numbered 1, 2, 3... (two branches adding the same number collide here)', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });
});

describe('npm run migrations:manifest', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const run = () => spawnSync(process.execPath, [SCRIPT, '--dir', dir], { encoding: 'utf8' });

  it('a new migration → its hash added, released entries kept as they were', () => {
    dir = mkdtempSync(join(tmpdir(), 'playbase-manifest-'));
    cpSync(DIR, dir, { recursive: true });
    const next = String(listMigrations(dir).length + 1).padStart(4, '0');
    writeFileSync(join(dir, `${next}_new_table.sql`), 'CREATE TABLE t (id int);\n');
    const res = run();
    expect(res.status).toBe(0);
    expect(readManifest(dir)).toEqual({
      ...readManifest(),
      [`${next}_new_table.sql`]: sha256('CREATE TABLE t (id int);\n'),
    });
  });

  it('a released migration edited → exit 1 naming it, the manifest left unchanged', () => {
    dir = mkdtempSync(join(tmpdir(), 'playbase-manifest-'));
    cpSync(DIR, dir, { recursive: true });
    writeFileSync(join(dir, '0001_accounts.sql'), '-- edited\n', { flag: 'a' });
    const before = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const res = run();
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('0001_accounts.sql is released but its content changed');
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(before);
  });
});
