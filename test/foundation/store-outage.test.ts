// The PostgreSQL store losing its database: no process dies, requests answer 503 NOT_READY, /readyz follows.
// Only this file's own backends are terminated (by pid or application_name): the database is shared.
import { randomBytes } from 'node:crypto';
import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../../src/nosql/snapshot-cursor.js';
import type { App } from '../../src/route/app.js';
import { createServer, type Server } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { isConnectionFailure } from '../../src/store/connection-failures.js';
import { openStore, type Store, withTransaction } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { ADMIN, basic, startTestServer, TEST_DATABASE_URL, type TestServer } from '../harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

async function admin<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Errors that reached the process's last resort while a test ran (an 'error' event nobody listened to). */
function watchUncaught(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onError = (e: unknown) => errors.push(e);
  process.on('uncaughtException', onError);
  return { errors, stop: () => process.off('uncaughtException', onError) };
}

function expectNotReady(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}): void {
  expect(res.statusCode).toBe(503);
  expect(res.json()).toEqual({
    message: 'The store does not answer',
    code: 'NOT_READY',
    requestId: expect.any(String),
  });
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

describe.skipIf(!TEST_DATABASE_URL)('a transaction whose backend is terminated', () => {
  let server: TestServer;
  let held: { pid: number; resume: () => void } | undefined;

  /** A route that holds a transaction open between two statements until the test resumes it. */
  function heldTransaction(app: App, ctx: { store: Store }): void {
    app.post('/probe/held-transaction', async () =>
      withTransaction(ctx.store.pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await new Promise<void>((resume) => {
          held = { pid: rows[0]!.pid, resume };
        });
        await client.query('SELECT 1');
        return { done: true };
      }),
    );
  }

  beforeAll(async () => {
    server = await startTestServer({}, { extraRegistrars: [heldTransaction] });
  });
  afterAll(() => server.close());

  it('pg_terminate_backend between two statements → no unhandled error, the request answers 503 NOT_READY', async () => {
    const uncaught = watchUncaught();
    try {
      const answer = server.app.inject({ method: 'POST', url: '/probe/held-transaction' });
      await until('transaction open', () => held !== undefined);
      const { pid, resume } = held!;
      // The backend of this test's own request, nobody else's.
      await admin('SELECT pg_terminate_backend($1)', [pid]);
      await until('backend gone', async () => {
        const rows = await admin('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
        return rows.length === 0;
      });
      // The client is idle while checked out: the termination notice reaches it as an 'error' event.
      await sleep(300);
      resume();
      expectNotReady(await answer);
      expect(uncaught.errors).toEqual([]);
      // The pool replaced the connection: the store answers again.
      expect((await server.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      uncaught.stop();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('a streaming cursor whose backend is terminated', () => {
  it('terminated between two batches → no unhandled error; the next batch fails as a connection failure', async () => {
    const store = await openStore({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: '',
      statementTimeoutMs: 10_000,
    });
    const uncaught = watchUncaught();
    try {
      const batches = readSnapshot<{ pid: number; n: number }>(
        store.pool,
        'SELECT pg_backend_pid() AS pid, n FROM generate_series(1, 10) AS n',
        [],
        2,
      );
      const first = await batches.next();
      const pid = (first.value as Array<{ pid: number }>)[0]!.pid;
      await admin('SELECT pg_terminate_backend($1)', [pid]);
      await until('backend gone', async () => {
        return (await admin('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length === 0;
      });
      await sleep(300);
      const next = await batches.next().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isConnectionFailure(next)).toBe(true);
      expect(uncaught.errors).toEqual([]);
      expect((await store.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      uncaught.stop();
      await store.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('the LISTEN connection', () => {
  it('its backend terminated → live again after a reconnection, and notifications arrive again', async () => {
    const applicationName = `pb_listen_${randomBytes(6).toString('hex')}`;
    const store = await openStore({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: '',
      statementTimeoutMs: 10_000,
      applicationName,
    });
    const channel = `pb_outage_${randomBytes(6).toString('hex')}`;
    const received: string[] = [];
    let gaps = 0;
    const subscription = await store.listen(
      channel,
      (payload) => received.push(payload),
      () => gaps++,
    );
    const uncaught = watchUncaught();
    try {
      expect([subscription.isLive(), gaps]).toEqual([true, 1]);
      // Only this store's connections carry this application_name.
      const killed = await admin<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      expect(killed.length).toBeGreaterThanOrEqual(1);
      // Lost (a gap), then back (another gap: what changed meanwhile was not announced).
      await until('reconnected', () => gaps >= 3 && subscription.isLive());
      await admin('SELECT pg_notify($1, $2)', [channel, 'after']);
      await until('notified', () => received.includes('after'));
      expect(uncaught.errors).toEqual([]);
    } finally {
      uncaught.stop();
      await subscription.close();
      await store.close();
    }
  });
});

/** A TCP proxy in front of the test PostgreSQL that the test can cut and restore: an outage for one server. */
class Outage {
  private server: TcpServer | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  private readonly target = new URL(TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432');

  /** Forwards to PostgreSQL again; `silent`: accepts connections and never answers (a black-holed network). */
  async restore(silent = false): Promise<void> {
    if (this.server) return;
    const server = createTcpServer((inbound) => {
      if (silent) {
        this.sockets.add(inbound);
        inbound.on('error', () => inbound.destroy());
        inbound.on('close', () => this.sockets.delete(inbound));
        return;
      }
      const outbound = connect(Number(this.target.port || 5432), this.target.hostname);
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('error', () => {
          inbound.destroy();
          outbound.destroy();
        });
        s.on('close', () => this.sockets.delete(s));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
  }

  /** Connections reset, new ones refused: what a server sees while its database restarts. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  url(): string {
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }
}

describe.skipIf(!TEST_DATABASE_URL)('a server whose database is unreachable', () => {
  const outage = new Outage();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const now = { value: Date.parse('2026-11-22T12:00:00Z') };
  let server: Server;
  let apiKey: string;
  let jwt: string;

  beforeAll(async () => {
    await outage.restore();
    const store = await openStore({
      databaseUrl: outage.url(),
      dataDir: '',
      statementTimeoutMs: 10_000,
      connectTimeoutMs: 2000,
      schema,
      poolSize: 4,
    });
    await migrate(store.pool);
    const settings = loadSettings({
      PORT: '0',
      LOG_LEVEL: process.env.PLAYBASE_TEST_LOG_LEVEL ?? 'silent',
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      PLAYBASE_DATA_DIR: '/nonexistent',
    });
    server = await createServer(settings, { store, clock: () => now.value });
    const game = await server.app.inject({
      method: 'POST',
      url: '/restv2/games',
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
      payload: { name: 'outage' },
    });
    apiKey = (game.json() as { apiKey: string }).apiKey;
    const issued = await server.app.inject({
      method: 'GET',
      url: `/restv2/auth/game/${apiKey}/jwt`,
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
    });
    jwt = (issued.json() as { 'X-SVC-JWT': string })['X-SVC-JWT'];
  });
  afterAll(async () => {
    await server?.close();
    await outage.cut();
    await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  const nosql = (path: string, body: unknown) =>
    server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${apiKey}/mongo/collection/player/${path}`,
      headers: { 'x-svc-jwt': jwt, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('cut → /readyz and data requests 503 NOT_READY with Retry-After (a JWT is not called bad); restored → ready, data intact', async () => {
    const inserted = await nosql('insert', { _id: 'before', n: 1 });
    expect(inserted.statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    await outage.cut();
    expectNotReady(await server.app.inject({ method: 'GET', url: '/readyz' }));
    expectNotReady(await nosql('find', { query: { _id: 'before' } }));
    expectNotReady(await nosql('insert', { _id: 'during' }));
    // A verified JWT is remembered 60 s and the signing keys 30 s: past both, checking the JWT needs the store,
    // and a store that does not answer is not the token's fault (503, not 401 JWT_INVALID).
    now.value += 61_000;
    expectNotReady(await nosql('count', {}));
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    await outage.restore();
    await until('ready again', async () => {
      return (await server.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200;
    });
    const found = await nosql('find', {});
    expect([found.statusCode, found.json()]).toEqual([200, [{ _id: 'before', n: 1 }]]);
  });

  it('a database that accepts connections and never answers → /readyz 503 NOT_READY after the connect timeout, not a hang', async () => {
    await outage.cut();
    await outage.restore(true);
    try {
      // Every old connection gone: /readyz has to open a new one, through the silent network.
      await until('pool emptied', () => server.store.pool.totalCount === 0);
      const start = Date.now();
      expectNotReady(await server.app.inject({ method: 'GET', url: '/readyz' }));
      // connectTimeoutMs is 2 s here; the bound is generous for a loaded machine.
      expect(Date.now() - start).toBeLessThan(10_000);
    } finally {
      await outage.cut();
      await outage.restore();
    }
    await until('ready again', async () => {
      return (await server.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200;
    });
  });
});
