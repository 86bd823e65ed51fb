// A server whose Redis goes away and comes back: it keeps answering (no 500) and its limits resume.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, storeKind, TEST_REDIS_URL } from '../harness.js';
import { freePort, type Running, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'outage-admin@playbase.test', password: 'outage-password-1' };

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return new Promise((resolve) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('Ready to accept connections')) resolve(child);
    });
  });
}

async function stopRedis(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

// Needs the redis-server binary (present where Redis is); the embedded store suffices for the server itself.
describe.skipIf(!TEST_REDIS_URL || storeKind === 'postgres')('Redis outage during a run', () => {
  let redisPort: number;
  let redis: ChildProcess;
  let server: Running;
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-outage-'));

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    server = spawnPlaybase({
      PORT: String(await freePort()),
      PLAYBASE_DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_LIMIT_USER_PER_MINUTE: '30',
      LOG_LEVEL: 'info',
    });
    await waitReady(server.url);
  }, 30_000);

  afterAll(async () => {
    await stopAll([server]);
    if (redis.exitCode === null) await stopRedis(redis);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function hit(token: string, n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${server.url}/restv2/games`, { headers: { 'x-svcaccesstoken': token } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    return statuses;
  }

  it('Redis killed → requests still answered with no 500, one warning; Redis back → counting in Redis resumes', async () => {
    const login = await fetch(`${server.url}/restv2/auth/user`, {
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
    });
    const token = ((await login.json()) as Record<string, string>)['X-SVCAccessToken'] as string;

    expect(await hit(token, 10)).toEqual(Array(10).fill(200));
    await stopRedis(redis);
    const during = await hit(token, 15);
    expect(during.every((s) => s === 200 || s === 429)).toBe(true);
    expect(during.filter((s) => s === 200).length).toBeGreaterThan(0);

    redis = await startRedis(redisPort);
    // The limiter probes Redis about once a second; wait until it is back in use.
    await new Promise((r) => setTimeout(r, 2500));
    // A fresh Redis has no counts: exactly the limit (30) of the next 40 requests pass, then 429.
    const after = await hit(token, 40);
    expect(after.filter((s) => s === 200).length).toBe(30);
    expect(after.slice(30)).toEqual(Array(10).fill(429));
    const warnings = server
      .output()
      .split('\n')
      .filter((l) => l.includes('"level":40') && /redis/i.test(l));
    expect(warnings.length).toBe(1);
  }, 60_000);
});
