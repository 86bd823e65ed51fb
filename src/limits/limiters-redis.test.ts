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
    // Points are leased from Redis in blocks, never past the limit: the window's count stops at 600.
    expect(await inspector.get(`${keyPrefix}:rl:game:${game}`)).toBe('600');
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

  it('a request refused per game → its user point given back', async () => {
    const [a, b] = await twoProcesses({ perGamePerMinute: 2, perUserPerMinute: 1 });
    const game = `game-${randomUUID()}`;
    const dave = `dave-${randomUUID()}`;
    expect((await a.consumeManagement(`x-${game}`, game)).allowed).toBe(true);
    expect((await b.consumeManagement(`y-${game}`, game)).allowed).toBe(true);
    expect(await a.consumeManagement(dave, game)).toMatchObject({ allowed: false, scope: 'game' });
    // dave's one request a minute was not spent by the refused request.
    expect(await a.consumeManagement(dave, `other-${game}`)).toMatchObject({ allowed: true, scope: 'user' });
    expect(await a.consumeManagement(dave, `other-${game}`)).toMatchObject({ allowed: false, scope: 'user' });
    expect(await b.consumeManagement(dave, `other-${game}`)).toMatchObject({ allowed: false, scope: 'user' });
  });

  it('points leased by one process → at most a 32nd of the window unused, spent by it later; never past the limit', async () => {
    const [a, b] = await twoProcesses();
    const game = `game-${randomUUID()}`;
    const allowedOf = async (limiters: Limiters, n: number) => {
      let allowed = 0;
      for (let i = 0; i < n; i++) if ((await limiters.consumeManagement(undefined, game)).allowed) allowed++;
      return allowed;
    };
    expect(await allowedOf(a, 40)).toBe(40);
    const leased = Number(await inspector.get(`${keyPrefix}:rl:game:${game}`));
    expect(leased).toBeGreaterThanOrEqual(40);
    expect(leased).toBeLessThanOrEqual(40 + 600 / 32);
    expect(await allowedOf(b, 600)).toBe(600 - leased);
    expect(await allowedOf(a, 30)).toBe(leased - 40);
    expect(await inspector.get(`${keyPrefix}:rl:game:${game}`)).toBe('600');
  });

  it('one request → one point on each counter, both windows a minute long', async () => {
    const [a] = await twoProcesses();
    const user = `user-${randomUUID()}`;
    const game = `game-${randomUUID()}`;
    expect(await a.consumeManagement(user, game)).toMatchObject({
      allowed: true,
      scope: 'user',
      remaining: 299,
    });
    for (const key of [`${keyPrefix}:rl:user:${user}`, `${keyPrefix}:rl:game:${game}`]) {
      expect(await inspector.get(key)).toBe('1');
      const ttl = await inspector.pttl(key);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('scripts flushed from Redis (a restart) → the counting script is loaded again, counts go on', async () => {
    const [a] = await twoProcesses();
    const user = `user-${randomUUID()}`;
    const game = `game-${randomUUID()}`;
    expect((await a.consumeManagement(user, game)).allowed).toBe(true);
    await inspector.script('FLUSH');
    expect(await a.consumeManagement(user, game)).toMatchObject({
      allowed: true,
      scope: 'user',
      remaining: 298,
    });
    // The second request leased a new block of the game's window through the reloaded script.
    expect(Number(await inspector.get(`${keyPrefix}:rl:game:${game}`))).toBeGreaterThanOrEqual(2);
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
