// Memory limiters: exact counts, refusals that spend no other counter, slots, and the settings.
import { describe, expect, it } from 'vitest';
import { catalogue } from '../error-catalogue.js';
import { rateLimited } from './errors.js';
import { createLimiters, type LimitersOptions } from './limiters.js';

const silent = { warn() {}, info() {} };

function memoryLimiters(overrides: Partial<LimitersOptions> = {}) {
  return createLimiters({
    keyPrefix: 'mem',
    perUserPerMinute: 300,
    perGamePerMinute: 600,
    concurrentConfigWrites: 10,
    runtimePerGamePerSecond: 1000,
    logger: silent,
    ...overrides,
  });
}

async function countAllowed(times: number, call: (i: number) => Promise<{ allowed: boolean }>) {
  const results = await Promise.all(Array.from({ length: times }, (_, i) => call(i)));
  return results.filter((r) => r.allowed).length;
}

describe('memory rate counters', () => {
  it('700 requests of one game by many users → exactly 600 allowed', async () => {
    const limiters = memoryLimiters();
    expect(await countAllowed(700, (i) => limiters.consumeManagement(`user-${i}`, 'game-a'))).toBe(600);
    await limiters.close();
  });

  it('350 requests of one user over several games → exactly 300 allowed', async () => {
    const limiters = memoryLimiters();
    expect(await countAllowed(350, (i) => limiters.consumeManagement('alice', `game-${i % 3}`))).toBe(300);
    await limiters.close();
  });

  it('the 301st request of a user → refused with scope user, retry-after and zero remaining', async () => {
    const limiters = memoryLimiters();
    await countAllowed(300, () => limiters.consumeManagement('alice', 'g'));
    const refused = await limiters.consumeManagement('alice', 'g');
    expect(refused).toMatchObject({ allowed: false, scope: 'user', limit: 300, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    await limiters.close();
  });

  it('requests refused per user → the game keeps its whole budget for others', async () => {
    const limiters = memoryLimiters({ perUserPerMinute: 5, perGamePerMinute: 10 });
    expect(await countAllowed(50, () => limiters.consumeManagement('greedy', 'g'))).toBe(5);
    expect(await countAllowed(20, (i) => limiters.consumeManagement(`other-${i}`, 'g'))).toBe(5);
    await limiters.close();
  });

  it('requests refused per game → their user points are given back', async () => {
    const limiters = memoryLimiters({ perUserPerMinute: 10, perGamePerMinute: 3 });
    expect(await countAllowed(8, () => limiters.consumeManagement('bob', 'busy'))).toBe(3);
    const refused = await limiters.consumeManagement('bob', 'busy');
    expect(refused).toMatchObject({ allowed: false, scope: 'game', limit: 3 });
    // 3 points spent on busy, the 6 refused requests refunded: 7 left of the user's 10.
    expect(await countAllowed(10, () => limiters.consumeManagement('bob', undefined))).toBe(7);
    await limiters.close();
  });

  it('an allowed request → described by the counter with the fewest points left', async () => {
    const limiters = memoryLimiters({ perUserPerMinute: 300, perGamePerMinute: 4 });
    expect(await limiters.consumeManagement('carol', 'g')).toMatchObject({
      scope: 'game',
      limit: 4,
      remaining: 3,
    });
    expect(await limiters.consumeManagement('carol', undefined)).toMatchObject({
      scope: 'user',
      remaining: 298,
    });
    const first = await limiters.consumeManagement(undefined, 'other');
    expect(first).toMatchObject({ allowed: true, scope: 'game', remaining: 3, retryAfterSeconds: 0 });
    expect(first.resetSeconds).toBe(60);
    await limiters.close();
  });

  it('no user and no game → allowed and not counted', async () => {
    const limiters = memoryLimiters();
    expect(await limiters.consumeManagement(undefined, undefined)).toMatchObject({
      allowed: true,
      scope: 'none',
    });
    await limiters.close();
  });

  it('a limit set to 0 → that counter is off', async () => {
    const limiters = memoryLimiters({ perUserPerMinute: 0, perGamePerMinute: 0, runtimePerGamePerSecond: 0 });
    expect(await countAllowed(1000, () => limiters.consumeManagement('u', 'g'))).toBe(1000);
    expect((await limiters.consumeRuntime('g')).scope).toBe('none');
    await limiters.close();
  });

  it('runtime calls → counted per game and per second, apart from the management counters', async () => {
    const limiters = memoryLimiters({ perGamePerMinute: 2, runtimePerGamePerSecond: 5 });
    expect(await countAllowed(9, () => limiters.consumeRuntime('g'))).toBe(5);
    const refused = await limiters.consumeRuntime('g');
    expect(refused).toMatchObject({ allowed: false, scope: 'runtime', retryAfterSeconds: 1 });
    expect((await limiters.consumeManagement('u', 'g')).allowed).toBe(true);
    await limiters.close();
  });
});

describe('memory concurrency slots', () => {
  it('10 held slots → the 11th is refused, another user or game is not', async () => {
    const limiters = memoryLimiters();
    const held = await Promise.all(
      Array.from({ length: 10 }, () => limiters.acquireConfigWriteSlot('u', 'g')),
    );
    expect(held.every((r) => r !== null)).toBe(true);
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).toBeNull();
    expect(await limiters.acquireConfigWriteSlot('v', 'g')).not.toBeNull();
    expect(await limiters.acquireConfigWriteSlot('u', 'h')).not.toBeNull();
    await limiters.close();
  });

  it('a slot released twice → frees exactly one slot', async () => {
    const limiters = memoryLimiters({ concurrentConfigWrites: 2 });
    const a = await limiters.acquireConfigWriteSlot('u', 'g');
    const b = await limiters.acquireConfigWriteSlot('u', 'g');
    expect(b).not.toBeNull();
    await a?.();
    await a?.();
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).not.toBeNull();
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).toBeNull();
    await limiters.close();
  });

  it('user and game names with colons → never share slots', async () => {
    const limiters = memoryLimiters({ concurrentConfigWrites: 1 });
    expect(await limiters.acquireConfigWriteSlot('b:c', 'a')).not.toBeNull();
    expect(await limiters.acquireConfigWriteSlot('c', 'a:b')).not.toBeNull();
    await limiters.close();
  });

  it('close → frees the slots still held', async () => {
    const limiters = memoryLimiters({ concurrentConfigWrites: 1 });
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).not.toBeNull();
    await limiters.close();
    expect(await limiters.acquireConfigWriteSlot('u', 'g')).not.toBeNull();
  });
});

describe('limit errors and settings', () => {
  it('RATE_LIMITED → 429 carrying Retry-After and RateLimit-* headers, in the catalogue', () => {
    const error = rateLimited({
      allowed: false,
      scope: 'game',
      limit: 600,
      remaining: 0,
      resetSeconds: 42,
      retryAfterSeconds: 42,
    });
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(error.headers).toEqual({
      'Retry-After': '42',
      'RateLimit-Limit': '600',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '42',
    });
    const codes = catalogue.map((entry) => entry.code);
    expect(codes).toContain('RATE_LIMITED');
    expect(codes).toContain('TOO_MANY_CONCURRENT');
  });
});
