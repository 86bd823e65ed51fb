// The data service's own rate (prior art: 1000 calls a second per game), here 3 a second: 429 past it, counted per
// game, and not charged to the management API's per-user and per-game budgets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DataWorld, startDataWorld } from './world.js';

let w: DataWorld;
beforeAll(async () => {
  w = await startDataWorld({
    PLAYBASE_LIMIT_DATA_PER_SECOND: '3',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '100000',
  });
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const remainingOf = async (apiKey: string) => {
  const res = await w.call('GET', `/restv2/game/${apiKey}/config`, { authorization: w.server.adminBasic });
  expect(res.statusCode).toBe(200);
  return Number(res.headers['ratelimit-remaining']);
};

describe('data service rate', () => {
  it('past 3 calls a second of one game → 429 RATE_LIMITED with Retry-After and RateLimit-* headers', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => w.data('GET', 'preview', 'Score/a')));
    // 3 a second: even spread over two windows, at most 6 of 12 pass.
    const passed = answers.filter((r) => r.statusCode !== 429);
    const refused = answers.filter((r) => r.statusCode === 429);
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.length).toBeLessThanOrEqual(6);
    expect(passed[0]?.statusCode).toBe(404);
    expect(passed[0]?.headers['ratelimit-limit']).toBe('3');
    const first = refused[0];
    expect(first?.json()).toEqual({
      message: expect.stringContaining('per game on the data service'),
      code: 'RATE_LIMITED',
      requestId: expect.any(String),
    });
    expect(Number(first?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(first?.headers['ratelimit-limit']).toBe('3');
    expect(first?.headers['ratelimit-remaining']).toBe('0');
    expect(first?.headers['ratelimit-reset']).toBeDefined();
  });

  it("another game's data calls → counted apart", async () => {
    const other = await w.jwtOf('admin', w.otherApiKey);
    const res = await w.call('GET', `/preview/restv2/game/${w.otherApiKey}/data/Score/a`, other);
    expect(res.statusCode).toBe(404);
    expect(res.headers['ratelimit-limit']).toBe('3');
  });

  it('data calls → not charged to the management per-game budget', async () => {
    const before = await remainingOf(w.apiKey);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 0; i < 3; i++) expect((await w.data('GET', 'preview', 'Score/a')).statusCode).toBe(404);
    // One management call in between; a new minute window would only raise the figure.
    expect(await remainingOf(w.apiKey)).toBeGreaterThanOrEqual(before - 1);
  });
});
