import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { storeKind } from '../harness.js';
import { freePort, spawnPlaybase, waitReady } from '../processes.js';

// The embedded store only: the PostgreSQL run of the suite would repeat these unchanged.
describe.skipIf(storeKind === 'postgres')('the playbase process on the embedded store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-proc-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('first start → ready within 10 s, banner with URLs and a generated password shown once and never logged', async () => {
    const port = String(await freePort());
    const p = spawnPlaybase({ PORT: port, PLAYBASE_DATA_DIR: dataDir, PLAYBASE_ADMIN_PASSWORD: '' });
    try {
      const ms = await waitReady(p.url);
      expect(ms).toBeLessThan(10_000);
      const out = p.output();
      expect(out).toContain(`${p.url}/restv2/auth`);
      expect(out).toContain(`live ${p.url}/live`);
      expect(out).toContain(`preview ${p.url}/preview`);
      const password = /password: (\S+)/.exec(out)?.[1];
      expect(password).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(out.split(password!).length - 1).toBe(1);
      const logLines = out.split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      expect(logLines.join('\n')).not.toContain(password!);
    } finally {
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    }
  });

  it('second process on the same data folder → exits at once with a clear message', async () => {
    const first = spawnPlaybase({ PORT: String(await freePort()), PLAYBASE_DATA_DIR: dataDir });
    try {
      await waitReady(first.url);
      const second = spawnPlaybase({ PORT: String(await freePort()), PLAYBASE_DATA_DIR: dataDir });
      const code = await second.exited;
      expect(code).toBe(1);
      expect(second.output()).toContain(
        `The data folder ${dataDir} is in use by another Playbase process (pid ${first.child.pid})`,
      );
      // The first one is unharmed.
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('SIGTERM → logs the shutdown, exits 0 and releases the folder; a restart reuses the store without a new admin', async () => {
    const p = spawnPlaybase({ PORT: String(await freePort()), PLAYBASE_DATA_DIR: dataDir });
    await waitReady(p.url);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('shutting down');
    expect(p.output()).not.toContain('Administrator account created');
  });

  it('bad setting → exit 1 with a message naming the variable', async () => {
    const p = spawnPlaybase({ PORT: 'abc', PLAYBASE_DATA_DIR: dataDir });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('Invalid setting PORT');
  });

  it('kill -9 of the holder, left a zombie by a parent that has not reaped it → a second process on the folder starts at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'playbase-zombie-'));
    const port = await freePort();
    // sh starts Playbase in the background, then becomes `sleep`, which never waits for a child: the killed
    // process stays a zombie, as under a supervisor that has not reaped it yet.
    const wrapper = spawn(
      'sh',
      ['-c', `"${process.execPath}" --import tsx src/main.ts >/dev/null 2>&1 & echo $!; exec sleep 600`],
      {
        env: { ...process.env, PORT: String(port), PLAYBASE_DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const wrapperExited = new Promise((resolve) => wrapper.on('exit', resolve));
    let second: ReturnType<typeof spawnPlaybase> | undefined;
    let pid = 0;
    try {
      pid = Number(
        await new Promise<string>((resolve) =>
          wrapper.stdout?.once('data', (d) => resolve(String(d).trim())),
        ),
      );
      await waitReady(`http://127.0.0.1:${port}`, 90_000);
      process.kill(pid, 'SIGKILL');
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      };
      await expect.poll(state, { timeout: 10_000, interval: 20 }).toBe('Z');

      second = spawnPlaybase({ PORT: String(await freePort()), PLAYBASE_DATA_DIR: dir });
      const outcome = await Promise.race([waitReady(second.url, 60_000).then(() => 'ready'), second.exited]);
      expect([outcome, state()]).toEqual(['ready', 'Z']);
      expect(second.output()).not.toContain('is in use by another Playbase process');
    } finally {
      second?.child.kill('SIGTERM');
      await second?.exited;
      if (pid > 0) process.kill(pid, 'SIGKILL'); // already dead (a zombie) unless the test failed before
      wrapper.kill('SIGTERM'); // sleep ends; the zombie's new parent reaps it
      await wrapperExited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('kill -9 after acknowledged writes → the reopened store has every one of them, and the stale lock is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'playbase-kill-'));
    try {
      const p = spawnPlaybase({ PLAYBASE_DATA_DIR: dir, PORT: '0' }, 'test/fixtures/write-then-wait.ts');
      // The fixture prints "acknowledged N" after each committed write, then waits to be killed.
      const start = Date.now();
      while (!p.output().includes('acknowledged 50') && Date.now() - start < 20_000)
        await new Promise((r) => setTimeout(r, 50));
      expect(p.output()).toContain('acknowledged 50');
      p.child.kill('SIGKILL');
      await p.exited;
      const store = await openStore({ dataDir: dir, statementTimeoutMs: 10_000 });
      const { rows } = await store.pool.query('SELECT count(*)::int AS n FROM durability_probe');
      await store.close();
      expect(rows[0].n).toBe(50);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
