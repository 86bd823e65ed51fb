// Adds the SHA-256 of each new migration to src/store/migrations/manifest.json, the record of released
// migrations. It only ever adds: an entry whose file changed or disappeared is reported and the run fails,
// because a database that applied a released migration never runs it again (add a new migration instead).
// Usage: npm run migrations:manifest [-- --dir DIR] (default src/store/migrations; tests point it elsewhere)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dirAt = process.argv.indexOf('--dir');
const dir =
  dirAt < 0
    ? join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'store', 'migrations')
    : resolve(process.argv[dirAt + 1] ?? '');
const manifestPath = join(dir, 'manifest.json');

/** The hash of a migration's text; CRLF counts as LF, so a checkout that converts line endings still matches. */
const hashOf = (file) =>
  createHash('sha256')
    .update(readFileSync(join(dir, file), 'utf8').replaceAll('\r\n', '\n'))
    .digest('hex');

const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
const files = readdirSync(dir).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f));
const problems = [];
for (const [file, hash] of Object.entries(manifest)) {
  if (!files.includes(file)) problems.push(`${file} is released (in the manifest) but the file is missing`);
  else if (hashOf(file) !== hash) problems.push(`${file} is released but its content changed`);
}
if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`migrations:manifest: ${p}\n`);
  process.stderr.write('Restore released migrations as they were; put a change in a new migration file.\n');
  process.exit(1);
}
const added = files.filter((f) => !(f in manifest)).sort();
for (const file of added) manifest[file] = hashOf(file);
const sorted = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(manifestPath, `${JSON.stringify(sorted, null, 2)}\n`);
process.stdout.write(added.length ? `added to the manifest: ${added.join(', ')}\n` : 'manifest up to date\n');
