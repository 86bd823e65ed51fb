// The Fastify hooks: 429s with their headers, and a configuration write's slot freed however the request ends.
import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { isConfigWriteMethod, limitsPlugin, type RefusingLimit, type RequestClass } from './hook.js';
import { createLimiters, type LimitersOptions } from './limiters.js';

const silent = { warn() {}, info() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stands in for the lead's classify: user from a header (authentication), game from the path. */
function classify(request: FastifyRequest): RequestClass {
  const params = request.params as { game?: string };
  const user = request.headers['x-user'] as string | undefined;
  if (request.url.startsWith('/runtime/')) return { game: params.game, kind: 'runtime', configWrite: false };
  const configWrite = request.url.includes('/config') && isConfigWriteMethod(request.method);
  return { user, game: params.game, kind: 'management', configWrite };
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 3000) throw new Error('condition not met in time');
    await sleep(10);
  }
}

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function buildApp(
  overrides: Partial<LimitersOptions>,
  routes: (app: FastifyInstance) => void,
  onRefused?: (limit: RefusingLimit) => void,
) {
  const limiters = createLimiters({
    keyPrefix: 'hook',
    perUserPerMinute: 300,
    perGamePerMinute: 600,
    concurrentConfigWrites: 10,
    runtimePerGamePerSecond: 1000,
    logger: silent,
    ...overrides,
  });
  const app = Fastify();
  apps.push(app);
  app.addHook('onClose', async () => limiters.close());
  await app.register(limitsPlugin(limiters, { classify, ...(onRefused ? { onRefused } : {}) }));
  // Routes in a child context: the plugin's hooks must reach them (skip-override).
  await app.register(async (child) => routes(child));
  await app.ready();
  return app;
}

const asUser = (user: string) => ({ 'x-user': user });

describe('limits hooks', () => {
  it('third request of a user limited to 2 a minute → 429 RATE_LIMITED with Retry-After and RateLimit-*', async () => {
    const app = await buildApp({ perUserPerMinute: 2 }, (child) => {
      child.get('/game/:game/things', async () => ({ ok: true }));
    });
    const send = () => app.inject({ method: 'GET', url: '/game/g1/things', headers: asUser('alice') });
    const first = await send();
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '1',
      'ratelimit-reset': '60',
    });
    expect((await send()).headers['ratelimit-remaining']).toBe('0');
    const refused = await send();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
    const otherUser = await app.inject({ method: 'GET', url: '/game/g1/things', headers: asUser('bob') });
    expect(otherUser.statusCode).toBe(200);
  });

  it('runtime calls → counted per game per second, with headers', async () => {
    const app = await buildApp({ runtimePerGamePerSecond: 1 }, (child) => {
      child.get('/runtime/:game', async () => ({ ok: true }));
    });
    const first = await app.inject({ method: 'GET', url: '/runtime/g1' });
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '1',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1',
    });
    expect((await app.inject({ method: 'GET', url: '/runtime/g1' })).statusCode).toBe(429);
  });

  it('2 slow config writes in flight with a limit of 2 → the 3rd answers 429 at once; GET still served', async () => {
    const slow = gate();
    let entered = 0;
    const app = await buildApp({ concurrentConfigWrites: 2 }, (child) => {
      child.post('/game/:game/config/events', async () => {
        entered++;
        await slow.opened;
        return { ok: true };
      });
      child.get('/game/:game/config/events', async () => ({ ok: true }));
    });
    const write = () =>
      app.inject({ method: 'POST', url: '/game/g1/config/events', headers: asUser('u'), payload: {} });
    const held = [write(), write()];
    await waitFor(() => entered === 2);
    const third = await write();
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ code: 'TOO_MANY_CONCURRENT' });
    expect(third.headers['retry-after']).toBe('1');
    const read = await app.inject({ method: 'GET', url: '/game/g1/config/events', headers: asUser('u') });
    expect(read.statusCode).toBe(200);
    slow.open();
    expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await write()).statusCode).toBe(200);
  });

  it('rate limits off, concurrency on → no RateLimit-* headers, yet a 2nd write in flight answers 429', async () => {
    const slow = gate();
    let entered = 0;
    const off = { perUserPerMinute: 0, perGamePerMinute: 0, runtimePerGamePerSecond: 0 };
    const app = await buildApp({ ...off, concurrentConfigWrites: 1 }, (child) => {
      child.get('/game/:game/things', async () => ({ ok: true }));
      child.get('/runtime/:game', async () => ({ ok: true }));
      child.post('/game/:game/config/events', async () => {
        entered++;
        await slow.opened;
        return { ok: true };
      });
    });
    for (const url of ['/game/g1/things', '/runtime/g1']) {
      const read = await app.inject({ method: 'GET', url, headers: asUser('u') });
      expect(read.statusCode).toBe(200);
      expect(Object.keys(read.headers).filter((h) => h.startsWith('ratelimit'))).toEqual([]);
    }
    const write = () =>
      app.inject({ method: 'POST', url: '/game/g1/config/events', headers: asUser('u'), payload: {} });
    const held = write();
    await waitFor(() => entered === 1);
    const second = await write();
    expect(second.statusCode).toBe(429);
    expect(second.json()).toMatchObject({ code: 'TOO_MANY_CONCURRENT' });
    slow.open();
    expect((await held).statusCode).toBe(200);
    expect((await write()).statusCode).toBe(200);
  });

  it('config writes whose handler throws → every slot freed', async () => {
    const app = await buildApp({ concurrentConfigWrites: 1 }, (child) => {
      child.put('/game/:game/config/events/:code', async () => {
        throw new Error('boom');
      });
    });
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({
        method: 'PUT',
        url: '/game/g1/config/events/e',
        headers: asUser('u'),
        payload: {},
      });
      expect(response.statusCode).toBe(500);
    }
  });

  it('config write past its handler timeout → 503 and its slot freed', async () => {
    const app = await buildApp({ concurrentConfigWrites: 1 }, (child) => {
      child.post('/game/:game/config/hang', { handlerTimeout: 100 }, () => new Promise(() => {}));
      child.post('/game/:game/config/quick', async () => ({ ok: true }));
    });
    const hung = await app.inject({
      method: 'POST',
      url: '/game/g1/config/hang',
      headers: asUser('u'),
      payload: {},
    });
    expect(hung.statusCode).toBe(503);
    const next = await app.inject({
      method: 'POST',
      url: '/game/g1/config/quick',
      headers: asUser('u'),
      payload: {},
    });
    expect(next.statusCode).toBe(200);
  });

  it('client disconnects during a slow config write → its slot freed', async () => {
    let entered = false;
    const app = await buildApp({ concurrentConfigWrites: 1 }, (child) => {
      child.post('/game/:game/config/slow', () => {
        entered = true;
        return new Promise(() => {});
      });
      child.post('/game/:game/config/quick', async () => ({ ok: true }));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const client = httpRequest({
      host: '127.0.0.1',
      port: address.port,
      method: 'POST',
      path: '/game/g1/config/slow',
      headers: { ...asUser('u'), 'content-type': 'application/json' },
    });
    client.on('error', () => {});
    client.end('{}');
    await waitFor(() => entered);
    const quick = () =>
      app.inject({ method: 'POST', url: '/game/g1/config/quick', headers: asUser('u'), payload: {} });
    const whileHeld = await quick();
    expect(whileHeld.statusCode).toBe(429);
    client.destroy();
    let after = await quick();
    for (let tries = 0; after.statusCode === 429 && tries < 100; tries++) {
      await sleep(20); // the server sees the disconnect a moment later
      after = await quick();
    }
    expect(after.statusCode).toBe(200);
  });

  it('each 429 of a rate → onRefused told its counter (user, game, runtime); an allowed request tells nothing', async () => {
    const refused: RefusingLimit[] = [];
    const limits = { perUserPerMinute: 1, perGamePerMinute: 2, runtimePerGamePerSecond: 1 };
    const app = await buildApp(
      limits,
      (child) => {
        child.get('/game/:game/things', async () => ({ ok: true }));
        child.get('/runtime/:game', async () => ({ ok: true }));
      },
      (limit) => refused.push(limit),
    );
    const get = (url: string, user?: string) =>
      app.inject({ method: 'GET', url, headers: user ? asUser(user) : {} });
    expect((await get('/game/g1/things', 'alice')).statusCode).toBe(200);
    expect(refused).toEqual([]);
    expect((await get('/game/g1/things', 'alice')).statusCode).toBe(429);
    expect((await get('/game/g1/things', 'bob')).statusCode).toBe(200);
    expect((await get('/game/g1/things', 'carol')).statusCode).toBe(429);
    expect((await get('/runtime/g2')).statusCode).toBe(200);
    expect((await get('/runtime/g2')).statusCode).toBe(429);
    expect(refused).toEqual(['user', 'game', 'runtime']);
  });

  it('a config write refused for want of a slot → onRefused told config_writes', async () => {
    const refused: RefusingLimit[] = [];
    const slow = gate();
    let entered = 0;
    const app = await buildApp(
      { concurrentConfigWrites: 1 },
      (child) => {
        child.post('/game/:game/config/events', async () => {
          entered++;
          await slow.opened;
          return { ok: true };
        });
      },
      (limit) => refused.push(limit),
    );
    const write = () =>
      app.inject({ method: 'POST', url: '/game/g1/config/events', headers: asUser('u'), payload: {} });
    const held = write();
    await waitFor(() => entered === 1);
    expect((await write()).statusCode).toBe(429);
    slow.open();
    expect((await held).statusCode).toBe(200);
    expect(refused).toEqual(['config_writes']);
  });
});
