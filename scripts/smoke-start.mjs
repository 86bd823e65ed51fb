// CI's check of a built server: starts `node <main.js>` on a fresh data folder and a free port, waits for
// /readyz (bounded), sends SIGTERM and expects a clean exit. Exits non-zero, with the server's output, otherwise.
// Usage: node scripts/smoke-start.mjs [path/to/main.js] (default dist/main.js).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const READY_MS = 60_000;
const GRACE_MS = 10_000;
const main = resolve(process.argv[2] ?? 'dist/main.js');

const freePort = () =>
  new Promise((done, fail) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
    srv.on('error', fail);
  });

/** 'ready', 'exited' (before it was ready) or 'timeout'. */
async function ready(url, exited) {
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.status === 200) return 'ready';
    if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(false), 200))])) return 'exited';
  }
  return 'timeout';
}

const dataDir = mkdtempSync(join(tmpdir(), 'playbase-smoke-'));
const port = await freePort();
const started = Date.now();
const child = spawn(process.execPath, [main], {
  env: {
    ...process.env,
    PORT: String(port),
    PLAYBASE_DATA_DIR: dataDir,
    PLAYBASE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (d) => (output += d));
child.stderr.on('data', (d) => (output += d));
const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));

let failure;
const state = await ready(`http://127.0.0.1:${port}`, exited);
if (state === 'exited') failure = `${main} exited before it was ready`;
else if (state === 'timeout') {
  failure = `${main} was not ready within ${READY_MS} ms`;
  child.kill('SIGKILL');
} else {
  const readyMs = Date.now() - started;
  child.kill('SIGTERM');
  const timeout = new Promise((r) => setTimeout(() => r(undefined), GRACE_MS + 5000).unref());
  const end = await Promise.race([exited, timeout]);
  if (end === undefined) {
    failure = `${main} did not exit within ${GRACE_MS + 5000} ms of SIGTERM`;
    child.kill('SIGKILL');
  } else if (end.code !== 0) failure = `${main} exited with ${end.code ?? end.signal} after SIGTERM`;
  else process.stdout.write(`smoke: ${main} ready in ${readyMs} ms, stopped cleanly on SIGTERM\n`);
}
await exited;
rmSync(dataDir, { recursive: true, force: true });
if (failure) {
  process.stderr.write(`smoke: ${failure}\n--- server output ---\n${output}\n`);
  process.exit(1);
}
