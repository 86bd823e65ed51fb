// Redis limiters shared by two instances, each with its own client, standing in for two server processes.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiters, type Limiters, type LimitersOptions } from './limiters.js';
import { createRedisClient } from './redis-client.js';

const redisUrl = process.env.PLAYBASE_TEST_REDIS_URL;
const silent = { warn() {}, info() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisUrl)('redis limiters shared by two processes', () => {
  const keyPrefix = `test-limits-${randomUUID()}`;
  const clients: Redis[] = [];
  const opened: Limiters[] = [];
  let inspector: Redis;

  beforeAll(async () => {
    inspector = new Redis(redisUrl!);
  });

  afterAll(async () => {
    await Promise.all(opened.map((limiters) => limiters.close()));
    const keys = await inspector.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await inspector.del(...keys);
    await Promise.all([...clients, inspector].map((client) => client.quit()));
  });

  async function twoProcesses(overrides: Partial<LimitersOptions> = {}): Promise<[Limiters, Limiters]> {
    const make = async () => {
      const redis = createRedisClient(redisUrl!, silent);
      clients.push(redis);
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      const limiters = createLimiters({
        redis,
        keyPrefix,
        perUserPerMinute: 300,
        perGamePerMinute: 600,
        concurrentConfigWrites: 10,
        runtimePerGamePerSecond: 1000,
        logger: silent,
        ...overrides,
      });
      opened.push(limiters);
      return limiters;
    };
    return [await make(), await make()];
  }

  it('700 requests of one game spread over two processes → exactly 600 allowed', async () => {
    const [a, b] = await twoProcesses();
    const game = `game-${randomUUID()}`;
    const calls = Array.from({ length: 700 }, (_, i) => (i % 2 ? a : b).consumeManagement(`user-${i}`, game));
    const allowed = (await Promise.all(calls)).filter((r) => r.allowed).length;
    expect(allowed).toBe(600);
    // Past the limit each process refuses the game from memory, so Redis saw at least the first refusal.
    expect(Number(await inspector.get(`${keyPrefix}:rl:game:${game}`))).toBeGreaterThan(600);
  });

  it('350 requests of one user spread over two processes → exactly 300 allowed', async () => {
    const [a, b] = await twoProcesses();
    const user = `user-${randomUUID()}`;
    const calls = Array.from({ length: 350 }, (_, i) =>
      (i % 2 ? a : b).consumeManagement(user, `game-${i % 5}`),
    );
    const allowed = (await Promise.all(calls)).filter((r) => r.allowed).length;
    expect(allowed).toBe(300);
  });

  it('a game refused in one process → refused in the other too, from Redis', async () => {
    const [a, b] = await twoProcesses({ perGamePerMinute: 3 });
    const game = `game-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await a.consumeManagement(`u${i}`, game)).allowed).toBe(true);
    expect(await a.consumeManagement('v', game)).toMatchObject({ allowed: false, scope: 'game' });
    expect(await a.consumeManagement('w', game)).toMatchObject({ allowed: false, scope: 'game' });
    expect(await b.consumeManagement('x', game)).toMatchObject({
      allowed: false,
      scope: 'game',
      remaining: 0,
    });
  });

  it('a request refused per game in one process → its user point given back in Redis', async () => {
    const [a, b] = await twoProcesses({ perGamePerMinute: 2 });
    const game = `game-${randomUUID()}`;
    await a.consumeManagement('x', game);
    await b.consumeManagement('x', game);
    expect((await a.consumeManagement('dave', game)).scope).toBe('game');
    expect(await inspector.get(`${keyPrefix}:rl:user:dave`)).toBe('0');
  });

  it('10 slots held across two processes → the 11th refused in either, free again after a release', async () => {
    const [a, b] = await twoProcesses();
    const game = `game-${randomUUID()}`;
    const held = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquireConfigWriteSlot('u', game)),
    );
    expect(held.every((release) => release !== null)).toBe(true);
    expect(await a.acquireConfigWriteSlot('u', game)).toBeNull();
    expect(await b.acquireConfigWriteSlot('u', game)).toBeNull();
    await held[0]?.();
    await held[0]?.();
    const again = await b.acquireConfigWriteSlot('u', game);
    expect(again).not.toBeNull();
    expect(await a.acquireConfigWriteSlot('u', game)).toBeNull();
    await Promise.all([...held, again].map((release) => release?.()));
    expect(await inspector.zcard(`${keyPrefix}:slots:${game}:u`)).toBe(0);
  });

  it('25 concurrent acquisitions over two processes → exactly 10 granted', async () => {
    const [a, b] = await twoProcesses();
    const game = `game-${randomUUID()}`;
    const tries = await Promise.all(
      Array.from({ length: 25 }, (_, i) => (i % 2 ? a : b).acquireConfigWriteSlot('u', game)),
    );
    expect(tries.filter((release) => release !== null)).toHaveLength(10);
  });

  it('a live holder past several lease lengths → its slot stays taken (heartbeat)', async () => {
    const [a, b] = await twoProcesses({ concurrentConfigWrites: 1, slotTtlMs: 450 });
    const game = `game-${randomUUID()}`;
    const release = await a.acquireConfigWriteSlot('u', game);
    expect(release).not.toBeNull();
    await sleep(1400);
    expect(await b.acquireConfigWriteSlot('u', game)).toBeNull();
    await release?.();
    expect(await b.acquireConfigWriteSlot('u', game)).not.toBeNull();
  });

  it('a holder that crashed (stops heartbeating) → its slots free within the lease', async () => {
    const [, survivor] = await twoProcesses({ concurrentConfigWrites: 2, slotTtlMs: 400 });
    const crashedClient = createRedisClient(redisUrl!, silent);
    await new Promise((resolve) => crashedClient.once('ready', resolve));
    const crashed = createLimiters({
      redis: crashedClient,
      keyPrefix,
      perUserPerMinute: 300,
      perGamePerMinute: 600,
      concurrentConfigWrites: 2,
      runtimePerGamePerSecond: 1000,
      slotTtlMs: 400,
      logger: silent,
    });
    opened.push(crashed);
    const game = `game-${randomUUID()}`;
    expect(await crashed.acquireConfigWriteSlot('u', game)).not.toBeNull();
    expect(await crashed.acquireConfigWriteSlot('u', game)).not.toBeNull();
    crashedClient.disconnect(); // its heartbeats now fail; the slots are never released
    expect(await survivor.acquireConfigWriteSlot('u', game)).toBeNull();
    await sleep(900);
    expect(await survivor.acquireConfigWriteSlot('u', game)).not.toBeNull();
    expect(await survivor.acquireConfigWriteSlot('u', game)).not.toBeNull();
    expect(await survivor.acquireConfigWriteSlot('u', game)).toBeNull();
  });

  it('runtime calls over two processes → exactly the per-second limit allowed', async () => {
    const [a, b] = await twoProcesses({ runtimePerGamePerSecond: 50 });
    const game = `game-${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) => (i % 2 ? a : b).consumeRuntime(game)),
    );
    // The window opens with the first call of this new game and the burst lasts milliseconds of its second.
    expect(results.filter((r) => r.allowed)).toHaveLength(50);
  });
});
