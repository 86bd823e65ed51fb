// Redis outage: a throwaway redis-server is killed mid-run and started again on the same port.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimiters } from './limiters.js';
import { createRedisClient } from './redis-client.js';

// The machine's shared Redis is never stopped: this test runs its own server on a free port.
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const enabled = Boolean(process.env.PLAYBASE_TEST_REDIS_URL) && hasRedisServer;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger() {
  const lines: { level: 'warn' | 'info'; msg: string }[] = [];
  return {
    lines,
    warn: (_obj: object, msg?: string) => void lines.push({ level: 'warn', msg: msg ?? '' }),
    info: (_obj: object, msg?: string) => void lines.push({ level: 'info', msg: msg ?? '' }),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn('redis-server', [...args, '--daemonize', 'no'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  probe.on('error', () => {});
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}`);
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe.skipIf(!enabled)('redis outage', () => {
  const started: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map(stopRedis));
  });

  it('redis killed mid-run then started again → served from memory, one warning, back on redis', async () => {
    const port = await freePort();
    started.push(await startRedis(port));
    const logger = recordingLogger();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger, { maxReconnectDelayMs: 100 });
    await waitFor(() => redis.status === 'ready', 5000);
    const limiters = createLimiters({
      redis,
      keyPrefix: `outage-${randomUUID()}`,
      perUserPerMinute: 0,
      perGamePerMinute: 10,
      concurrentConfigWrites: 1,
      runtimePerGamePerSecond: 1000,
      redisProbeIntervalMs: 100,
      logger,
    });
    const inspector = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    inspector.on('error', () => {});
    const countInRedis = async () => {
      await inspector.connect().catch(() => {});
      const keys = await inspector.keys('outage-*:rl:game:g');
      const value = keys[0] ? await inspector.get(keys[0]) : null;
      inspector.disconnect();
      return value;
    };

    for (let i = 0; i < 4; i++) expect((await limiters.consumeManagement('u', 'g')).allowed).toBe(true);
    expect(await countInRedis()).toBe('4');
    for (let i = 0; i < 11; i++) await limiters.consumeManagement('u', 'full');

    await stopRedis(started.pop()!);
    const during = [];
    for (let i = 0; i < 12; i++) during.push(await limiters.consumeManagement('u', 'g'));
    // The memory fallback starts its own window, and still enforces the limit.
    expect(during.filter((r) => r.allowed)).toHaveLength(10);
    const slot = await limiters.acquireConfigWriteSlot('u', 'g');
    expect(slot).not.toBeNull();
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).toBeNull();
    await slot?.();
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    // A game refused before the outage is refused from memory: that must not pass for Redis being back.
    await sleep(150);
    expect((await limiters.consumeManagement('u', 'full')).allowed).toBe(false);
    expect(logger.lines.filter((line) => /reachable again/.test(line.msg))).toHaveLength(0);

    started.push(await startRedis(port));
    await waitFor(() => redis.status === 'ready', 5000);
    await sleep(150); // one probe interval
    expect((await limiters.consumeManagement('u', 'g')).allowed).toBe(true);
    expect(await countInRedis()).toBe('1');
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    expect(logger.lines.filter((line) => /reachable again/.test(line.msg))).toHaveLength(1);

    await limiters.close();
    redis.disconnect();
  });

  it('redis killed under concurrent load → every request answered, none fails', async () => {
    const port = await freePort();
    started.push(await startRedis(port));
    const logger = recordingLogger();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger, { commandTimeoutMs: 300 });
    await waitFor(() => redis.status === 'ready', 5000);
    const limiters = createLimiters({
      redis,
      keyPrefix: `outage-${randomUUID()}`,
      perUserPerMinute: 100000,
      perGamePerMinute: 100000,
      concurrentConfigWrites: 10,
      runtimePerGamePerSecond: 1000,
      logger,
    });
    const load = async (worker: number) => {
      const outcomes: boolean[] = [];
      for (let i = 0; i < 60; i++) {
        outcomes.push((await limiters.consumeManagement(`u${worker}`, 'g')).allowed);
        const slot = await limiters.acquireConfigWriteSlot(`u${worker}`, 'g');
        await slot?.();
        await sleep(2);
      }
      return outcomes;
    };
    const running = Promise.all([0, 1, 2, 3].map(load));
    await sleep(40);
    await stopRedis(started.pop()!);
    const outcomes = (await running).flat();
    expect(outcomes).toHaveLength(240);
    expect(outcomes.every(Boolean)).toBe(true);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    await limiters.close();
    redis.disconnect();
  });

  it('redis hung (stopped, socket open) → answered after one command timeout, then from memory at once', async () => {
    const port = await freePort();
    const child = await startRedis(port);
    started.push(child);
    const logger = recordingLogger();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger, { commandTimeoutMs: 200 });
    await waitFor(() => redis.status === 'ready', 5000);
    const limiters = createLimiters({
      redis,
      keyPrefix: `outage-${randomUUID()}`,
      perUserPerMinute: 300,
      perGamePerMinute: 600,
      concurrentConfigWrites: 10,
      runtimePerGamePerSecond: 1000,
      redisProbeIntervalMs: 5000,
      logger,
    });
    expect((await limiters.consumeRuntime('g')).allowed).toBe(true);
    child.kill('SIGSTOP');
    try {
      let started = Date.now();
      expect((await limiters.consumeManagement('u', 'g')).allowed).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      started = Date.now();
      for (let i = 0; i < 20; i++) expect((await limiters.consumeManagement('u', 'g')).allowed).toBe(true);
      expect(Date.now() - started).toBeLessThan(150);
      expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    } finally {
      child.kill('SIGCONT');
    }
    await limiters.close();
    redis.disconnect();
  });
});
