// Cost of authentication: an authenticated GET (JWT, access token) against an unauthenticated GET, in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Running, sharedPostgres, spawnPlaybase, waitReady } from '../test/processes.js';
import { type Figure, load, writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const basicHeader = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

// The baseline is the same GET without authentication: bench/auth-server.ts serves one handler, with the same
// params schema, at /bench/open/{apiKey} (no credential) and /bench/auth/{apiKey} (game at level 1, every
// credential). The gap between them is the authentication layer: credential parsing, the JWT check (or the
// access-token and game-access queries) and the permission check. GET /healthz is measured too, for scale.
const BASELINE_WHY =
  'baseline: the same GET (same schema and handler) without authentication, /bench/open/{apiKey} vs /bench/auth/{apiKey}';

async function jsonOf<T>(res: Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** A game owned by the administrator, an access token and a JWT for it. */
async function credentialsOn(url: string): Promise<{ apiKey: string; token: string; jwt: string }> {
  const login = await jsonOf<Record<string, string>>(
    fetch(`${url}/restv2/auth/user?expireInSeconds=7200`, { headers: { authorization: basicHeader } }),
  );
  const token = login['X-SVCAccessToken'] as string;
  const game = await jsonOf<{ apiKey: string }>(
    fetch(`${url}/restv2/games`, {
      method: 'POST',
      headers: { 'x-svcaccesstoken': token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    }),
  );
  const issued = await jsonOf<Record<string, string>>(
    fetch(`${url}/restv2/auth/game/${game.apiKey}/jwt`, { headers: { 'x-svcaccesstoken': token } }),
  );
  return { apiKey: game.apiKey, token, jwt: issued['X-SVC-JWT'] as string };
}

/** One process on PostgreSQL (BENCH_DATABASE_URL, default the local test server) or embedded (`none`). */
async function start(cleanups: (() => Promise<void>)[]): Promise<{ server: Running; store: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-auth-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = databaseUrl === 'none' ? undefined : await sharedPostgres(databaseUrl);
  if (db) cleanups.push(db.drop);
  const server = spawnPlaybase(
    {
      ...(db ? { DATABASE_URL: db.url } : {}),
      PORT: String(await freePort()),
      PLAYBASE_DATA_DIR: dataDir,
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      // Rate limits off: their cost is the limits bench's figure, not this one.
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
    },
    'bench/auth-server.ts',
  );
  cleanups.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  while (!server.output().includes('ready')) {
    if (server.child.exitCode !== null) throw new Error(`bench server exited: ${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await waitReady(server.url);
  return { server, store: db ? 'PostgreSQL' : 'embedded (PGlite)' };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface Round {
  open: Figure;
  jwt: Figure;
  token: Figure;
}

export async function benchAuth(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { server, store } = await start(cleanups);
    const { apiKey, token, jwt } = await credentialsOn(server.url);
    const pid = server.child.pid === undefined ? {} : { serverPid: server.child.pid };
    const open = { url: `${server.url}/bench/open/${apiKey}`, ...pid };
    const guarded = `${server.url}/bench/auth/${apiKey}`;
    const byJwt = { url: guarded, headers: { 'x-svc-jwt': jwt }, ...pid };
    const byToken = { url: guarded, headers: { 'x-svcaccesstoken': token }, ...pid };
    console.log(`store: ${store}; ${BASELINE_WHY}`);
    await load('warm-up open', { ...open, durationS: 2 });
    await load('warm-up jwt', { ...byJwt, durationS: 2 });
    await load('warm-up token', { ...byToken, durationS: 2 });
    // Short rounds, each measuring the three side by side; the median ratio shrugs off a noisy neighbour.
    const rounds: Round[] = [];
    for (let i = 1; i <= Number(process.env.BENCH_ROUNDS ?? 3); i++) {
      rounds.push({
        open: await load(`round ${i}: GET without authentication`, open),
        jwt: await load(`round ${i}: same GET with X-SVC-JWT`, byJwt),
        token: await load(`round ${i}: same GET with X-SVCAccessToken`, byToken),
      });
    }
    const healthz = await load('for scale: GET /healthz', { url: `${server.url}/healthz` });
    const realRoute = await load('for scale: GET /restv2/auth/game/{apiKey}/permissions with X-SVC-JWT', {
      url: `${server.url}/restv2/auth/game/${apiKey}/permissions`,
      headers: { 'x-svc-jwt': jwt },
    });
    const ratios = (pick: (r: Round) => Figure) =>
      rounds.map((r) => Number((pick(r).requestsPerSecond / r.open.requestsPerSecond).toFixed(3)));
    const result = {
      store,
      baseline: BASELINE_WHY,
      ratiosJwt: ratios((r) => r.jwt),
      ratiosToken: ratios((r) => r.token),
      ratioJwtToOpen: median(ratios((r) => r.jwt)),
      ratioTokenToOpen: median(ratios((r) => r.token)),
      goal: 'authentication and permission check cost under 10% of throughput (ratio at least 0.9)',
    };
    console.log(
      `median ratio authenticated/unauthenticated: JWT ${result.ratioJwtToOpen}, access token ${result.ratioTokenToOpen}`,
    );
    writeResults('auth', {
      figures: [...rounds.flatMap((r) => [r.open, r.jwt, r.token]), healthz, realRoute],
      ...result,
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
