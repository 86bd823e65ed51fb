// Builds the web console into console/dist (committed: `npm ci && npm start` serves it with no build step):
// type-checks console/, runs Vite, records the sources' hash and prints the main bundle's gzip size.
// Usage: npm run console:build
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { consoleSourceHash } from './console-hash.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function run(script: string, args: string[]): void {
  const res = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit', cwd: root });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

// The editor's completion, from the Spark API typings (types/cloud-code.d.ts).
run(require.resolve('tsx/cli'), ['scripts/spark-completions.ts']);
run(require.resolve('typescript/bin/tsc'), ['-p', 'console/tsconfig.json']);
run(join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'), [
  'build',
  '--config',
  'console/vite.config.ts',
  '--logLevel',
  'warn',
]);
const dist = join(root, 'console', 'dist');
writeFileSync(join(dist, 'source-hash.txt'), `${consoleSourceHash(root)}\n`);
for (const name of readdirSync(join(dist, 'assets'))
  .filter((n) => /\.(js|css)$/.test(n))
  .sort()) {
  const bytes = readFileSync(join(dist, 'assets', name));
  process.stdout.write(
    `console/dist/assets/${name}: ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzip\n`,
  );
}
