// What the console bundle is built from, as one hash: the files of console/ (not its dist/), the client sources
// it bundles (src/client, without the type-only schema and tests) and the versions of the build tool and UI
// library in package-lock.json. console/dist/source-hash.txt records it at each build; a test fails when they
// differ, i.e. when the committed bundle is older than its sources (docs/console.md).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

const BUILD_PACKAGES = [
  'vite',
  'preact',
  '@preact/signals',
  '@preact/signals-core',
  'diff',
  'openapi-fetch',
  'fflate',
  'codemirror',
  '@codemirror/view',
  '@codemirror/state',
  '@codemirror/lang-javascript',
  '@codemirror/autocomplete',
  '@codemirror/lint',
  '@codemirror/language',
];

export function consoleSourceHash(root: string): string {
  const inputs = [
    ...[...files(join(root, 'console'))].filter(
      (f) => !relative(root, f).startsWith(join('console', 'dist')),
    ),
    ...[...files(join(root, 'types'))],
    ...[...files(join(root, 'src', 'client'))].filter((f) => !/schema\.ts$|\.test(-util)?\.ts$/.test(f)),
  ]
    .map((f) => relative(root, f).split('\\').join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const path of inputs) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path), 'utf8').replaceAll('\r\n', '\n'));
    hash.update('\0');
  }
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  for (const name of BUILD_PACKAGES)
    hash.update(`${name}@${lock.packages[`node_modules/${name}`]?.version}\0`);
  return hash.digest('hex');
}
