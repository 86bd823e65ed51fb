// The production build: a clean dist/ that `node dist/main.js` starts with nothing but the runtime dependencies.
// tsc compiles src/ without test code; every file of src/ that is not TypeScript (SQL migrations, their manifest,
// any .js or data file a module reads beside itself through import.meta.url) is copied to the same place, so a
// new asset needs no change here. Usage: node scripts/build.mjs [--out-dir DIR] (default dist).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Test code by name: `*.test.ts` files and helpers they share, `*.test-util.ts`; development-only `*.dev.ts`. */
const isTestFile = (name) => /\.(test(-util)?|dev)\.[cm]?[jt]s$/.test(name);

function outDir(argv) {
  const at = argv.indexOf('--out-dir');
  return at < 0 ? join(root, 'dist') : resolve(argv[at + 1] ?? '');
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

function compile(out) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', out], {
    stdio: 'inherit',
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

function copyAssets(out) {
  let copied = 0;
  for (const path of files(src)) {
    const name = basename(path);
    if (/\.[cm]?ts$/.test(name) || isTestFile(name)) continue;
    const target = join(out, relative(src, path));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(path, target);
    copied++;
  }
  return copied;
}

const out = outDir(process.argv.slice(2));
if (out === root || out === src) throw new Error(`refusing to build into ${out}`);
// A clean folder: a file left from a module since deleted or renamed must not ship.
rmSync(out, { recursive: true, force: true });
compile(out);
const copied = copyAssets(out);
// The Spark API typings (types/*.d.ts), exported as playbase/cloud-code for a studio's editor (dist/cloud-code:
// dist/types holds src/types).
cpSync(join(root, 'types'), join(out, 'cloud-code'), { recursive: true });
// The web console's prebuilt bundle (console/dist, committed): served from dist/console by the config role.
const bundle = join(root, 'console', 'dist');
if (existsSync(join(bundle, 'index.html'))) cpSync(bundle, join(out, 'console'), { recursive: true });
process.stdout.write(
  `built ${relative(process.cwd(), out) || '.'}: compiled src/, copied ${copied} assets\n`,
);
