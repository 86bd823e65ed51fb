// The production build and the commands the README gives: `node dist/main.js` starts from a clean build with
// only runtime dependencies imported, and both it and `npm start` stop gracefully when that one process gets
// SIGTERM or SIGINT (nothing left running, the data folder released).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind, TEST_DATABASE_URL } from '../harness.js';
import { freePort, sharedPostgres, waitReady } from '../processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GRACE_MS = 5000;

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

// Module specifiers in compiled ES modules: static and dynamic imports, require and require.resolve.
const SPECIFIER =
  /\bfrom\s*['"]([^'"\s]+)['"]|\bimport\s*\(?\s*['"]([^'"\s]+)['"]|\brequire(?:\.resolve)?\(\s*['"]([^'"\s]+)['"]|\.resolve\(\s*['"]([^'"./\s][^'"\s]*)['"]/g;

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a built-in. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every process below `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while listing
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, p] of parentOf) {
      if (p !== parent) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** A process that still runs: present in /proc and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; at: number }>;
}

function start(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', PLAYBASE_SHUTDOWN_GRACE_MS: String(GRACE_MS), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<{ code: number | null; at: number }>((done) =>
    child.on('exit', (code) => done({ code, at: Date.now() })),
  );
  return { child, url: `http://127.0.0.1:${env.PORT}`, output: () => out, exited };
}

/** Waits for /readyz; a process that exits first (a bad start) fails at once with its output. */
async function ready(p: Started, timeoutMs: number): Promise<void> {
  const outcome = await Promise.race([waitReady(p.url, timeoutMs).then(() => 'ready'), p.exited]);
  if (outcome !== 'ready') throw new Error(`exited before ready:\n${p.output()}`);
}

/** After a failed test: whatever is left of a tree still running is killed, so it does not hold the folder. */
function killTree(p: Started): void {
  // An exited child's pid may already belong to another process: only a live one is looked at.
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  for (const pid of [p.child.pid!, ...descendants(p.child.pid!)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Sends `signal` to the one process started, then checks the whole tree ended in time and released the folder. */
async function stopGracefully(p: Started, signal: NodeJS.Signals, dataDir: string): Promise<void> {
  const tree = [p.child.pid!, ...descendants(p.child.pid!)];
  try {
    const sent = Date.now();
    p.child.kill(signal);
    const { code, at } = await p.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(GRACE_MS);
    expect(p.output()).toContain(`"signal":"${signal}"`);
    expect(p.output()).toContain('"msg":"stopped"');
    expect(tree.filter(running)).toEqual([]);
    expect(existsSync(join(dataDir, 'playbase.lock'))).toBe(false);
  } finally {
    for (const pid of tree.filter(running)) process.kill(pid, 'SIGKILL');
  }
}

/** The folder is free: another server starts on it, answers /readyz, and stops. */
async function startsAgainOn(dataDir: string, main: string): Promise<void> {
  const again = start(process.execPath, [main], {
    PORT: String(await freePort()),
    PLAYBASE_DATA_DIR: dataDir,
  });
  try {
    await ready(again, 60_000);
  } finally {
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }
}

describe('the production build', () => {
  const work = join(ROOT, '.test-data');
  const dirs: string[] = [];
  let out: string;
  const freshDir = () => {
    dirs.push(mkdtempSync(join(tmpdir(), 'playbase-build-')));
    return dirs.at(-1)!;
  };
  beforeAll(() => {
    mkdirSync(work, { recursive: true });
    // Inside the repository, so the build resolves node_modules as dist/ does.
    out = mkdtempSync(join(work, 'build-'));
    const res = spawnSync(process.execPath, ['scripts/build.mjs', '--out-dir', out], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(res.stderr + res.stdout).toContain('built');
    expect(res.status).toBe(0);
  }, 180_000);
  afterAll(() => {
    for (const dir of [out, ...dirs]) rmSync(dir, { recursive: true, force: true });
  });

  it('build → every non-TypeScript file of src/ copied (migrations), no test code', () => {
    const built = [...filesUnder(out)].map((f) => relative(out, f));
    const assets = [...filesUnder(join(ROOT, 'src'))]
      .map((f) => relative(join(ROOT, 'src'), f))
      .filter((f) => !/\.ts$/.test(f));
    expect(assets).toContain('store/migrations/0001_accounts.sql');
    for (const asset of assets) expect(built).toContain(asset);
    expect(built).toContain('main.js');
    expect(built.filter((f) => /\.test(-util)?\./.test(f))).toEqual([]);
    // The web console's prebuilt bundle (docs/console.md) ships beside the server.
    expect(built).toContain('console/index.html');
    // The Spark API typings, where package.json's playbase/cloud-code export points (docs/cloud-code.md).
    const exported = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports['./cloud-code']
      .types;
    expect(exported).toBe('./dist/cloud-code/cloud-code.d.ts');
    expect(built).toContain('cloud-code/cloud-code.d.ts');
    expect(built).toContain('cloud-code/spark-services.d.ts');
  });

  it('build → every module it imports is a file of the build, a Node built-in or a runtime dependency', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const runtime = new Set(Object.keys(pkg.dependencies));
    const wrong: string[] = [];
    // The console's bundle runs in browsers and imports nothing: only the server's modules are read here.
    const server = [...filesUnder(out)].filter(
      (f) => f.endsWith('.js') && !relative(out, f).startsWith('console/'),
    );
    for (const file of server) {
      for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const specifier = (m[1] ?? m[2] ?? m[3] ?? m[4])!;
        if (specifier.startsWith('.')) {
          if (!existsSync(resolve(file, '..', specifier))) wrong.push(`${relative(out, file)}: ${specifier}`);
          continue;
        }
        const name = packageOf(specifier);
        if (name !== undefined && !runtime.has(name)) wrong.push(`${relative(out, file)}: ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('build → a document compute thread starts from the built entry and answers a task', async () => {
    const { ComputePool } = await import(pathToFileURL(join(out, 'compute/pool.js')).href);
    const { DOCUMENT_WORKER } = await import(pathToFileURL(join(out, 'nosql/compute-tasks.js')).href);
    expect(DOCUMENT_WORKER.href).toBe(pathToFileURL(join(out, 'nosql/compute-worker.js')).href);
    const pool = new ComputePool(1, DOCUMENT_WORKER);
    try {
      const texts = ['{"_id":"a","n":1,"m":2}'];
      expect(await pool.run('render', { texts, fields: { n: 1 } }, undefined)).toEqual(['{"_id":"a","n":1}']);
    } finally {
      await pool.close();
    }
  });

  it('node dist/main.js on a fresh store → ready, prints its URLs; SIGTERM → exits 0 in time', async () => {
    const db = storeKind === 'postgres' ? await sharedPostgres(TEST_DATABASE_URL!) : undefined;
    const dataDir = freshDir();
    const env = { PORT: String(await freePort()), PLAYBASE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '' };
    const p = start(process.execPath, [join(out, 'main.js')], env);
    try {
      await ready(p, 60_000);
      expect(p.output()).toContain(`Playbase is up on ${p.url}`);
      expect(p.output()).toContain(`${p.url}/restv2/auth`);
      expect(p.output()).toContain(`${p.url}/console/`);
      expect((await fetch(`${p.url}/console/`)).status).toBe(200);
      await stopGracefully(p, 'SIGTERM', dataDir);
    } finally {
      killTree(p);
      await db?.drop();
    }
  }, 120_000);

  // The data folder's lock is the embedded store's; the PostgreSQL run would repeat these unchanged. Every stop
  // checks that the lock file is gone; the SIGTERM to npm (where the server used to be orphaned) also starts a
  // second server on the folder.
  it.skipIf(storeKind === 'postgres')(
    'node dist/main.js, SIGINT → exits 0 in time, the folder released',
    async () => {
      const dataDir = freshDir();
      const p = start(process.execPath, [join(out, 'main.js')], {
        PORT: String(await freePort()),
        PLAYBASE_DATA_DIR: dataDir,
      });
      try {
        await ready(p, 60_000);
        await stopGracefully(p, 'SIGINT', dataDir);
      } finally {
        killTree(p);
      }
    },
    120_000,
  );

  /** `npm start` on a fresh folder, stopped by `signal` sent to the npm process; returns the folder. */
  async function npmStartStopped(signal: NodeJS.Signals): Promise<string> {
    const dataDir = freshDir();
    const p = start('npm', ['start'], { PORT: String(await freePort()), PLAYBASE_DATA_DIR: dataDir });
    try {
      await ready(p, 90_000);
      expect(p.output()).toContain(`Playbase is up on ${p.url}`);
      await stopGracefully(p, signal, dataDir);
    } finally {
      killTree(p);
    }
    return dataDir;
  }

  it.skipIf(storeKind === 'postgres')(
    'npm start, SIGTERM to the npm process → npm and the server exit 0 in time, none left running; the folder takes a new server',
    async () => {
      const dataDir = await npmStartStopped('SIGTERM');
      await startsAgainOn(dataDir, join(out, 'main.js'));
    },
    180_000,
  );

  it.skipIf(storeKind === 'postgres')(
    'npm start, SIGINT to the npm process → npm and the server exit 0 in time, none left running, the folder released',
    async () => {
      await npmStartStopped('SIGINT');
    },
    180_000,
  );

  it.skipIf(storeKind === 'postgres')(
    'npm start with a terminal as standard output (script(1)) → readable log lines, no JSON',
    async () => {
      const dataDir = freshDir();
      const port = String(await freePort());
      const p = start('script', ['-qec', 'npm start', '/dev/null'], {
        PORT: port,
        PLAYBASE_DATA_DIR: dataDir,
      });
      try {
        await ready(p, 90_000);
        const server = descendants(p.child.pid!).find((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('src/main.ts'),
        );
        expect(server).toBeDefined();
        process.kill(server!, 'SIGTERM');
        expect((await p.exited).code).toBe(0);
        // pino-pretty colours the level on a terminal.
        const lines = stripVTControlCharacters(p.output()).split(/\r?\n/);
        expect(
          lines.filter((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: serving plain HTTP/.test(l)),
        ).toHaveLength(1);
        expect(lines.filter((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: stopped/.test(l))).toHaveLength(1);
        expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      } finally {
        killTree(p);
      }
    },
    180_000,
  );
});
