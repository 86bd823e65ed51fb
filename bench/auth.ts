// Cost of authentication: an authenticated GET (JWT, access token) against an unauthenticated GET, in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Running, sharedPostgres, spawnPlaybase, waitReady } from '../test/processes.js';
import { type Figure, load, pinApart, writeResults } from './lib.js';

const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
const basicHeader = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

// The baseline is the same GET without authentication: bench/auth-server.ts serves one handler, with the same
// params schema, at /bench/open/{apiKey} (no credential) and /bench/auth/{apiKey} (game at level 1, every
// credential). The gap between them is the authentication layer: credential parsing, the JWT check (or the
// access-token and game-access queries) and the permission check. The open route is also sent each credential,
// which it ignores, so that the checks can be told from the cost of carrying the header. GET /healthz is
// measured too, for scale.
const BASELINE_WHY =
  'baseline: the same GET (same schema and handler) without authentication, /bench/open/{apiKey} vs /bench/auth/{apiKey}; ' +
  'the open route also with the same header sent and ignored';

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
const round3 = (x: number) => Number(x.toFixed(3));

/** The fixed-rate runs ask for this share of the unauthenticated GET's throughput. */
const FIXED_RATE_SHARE = 0.6;

type Mode = 'open' | 'openJwt' | 'openToken' | 'jwt' | 'token';
const MODES: Mode[] = ['open', 'openJwt', 'openToken', 'jwt', 'token'];
const LABELS: Record<Mode, string> = {
  open: 'GET without authentication',
  openJwt: 'same GET without authentication, X-SVC-JWT sent and ignored',
  openToken: 'same GET without authentication, X-SVCAccessToken sent and ignored',
  jwt: 'same GET with X-SVC-JWT',
  token: 'same GET with X-SVCAccessToken',
};

/** CPU time of the authentication hook alone per request, timed in the server (bench/auth-server.ts). */
async function layerNanos(url: string, apiKey: string, headers: Record<string, string>, open = false) {
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const res = await jsonOf<{ nanosPerCall: number }>(
      fetch(`${url}/bench/layer/${apiKey}?calls=20000${open ? '&open=true' : ''}`, { headers }),
    );
    samples.push(res.nanosPerCall);
  }
  return median(samples);
}

export async function benchAuth(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { server, store } = await start(cleanups);
    const { apiKey, token, jwt } = await credentialsOn(server.url);
    const pid = server.child.pid === undefined ? {} : { serverPid: server.child.pid };
    const guarded = `${server.url}/bench/auth/${apiKey}`;
    const targets: Record<Mode, Parameters<typeof load>[1]> = {
      open: { url: `${server.url}/bench/open/${apiKey}`, ...pid },
      openJwt: { url: `${server.url}/bench/open/${apiKey}`, headers: { 'x-svc-jwt': jwt }, ...pid },
      openToken: {
        url: `${server.url}/bench/open/${apiKey}`,
        headers: { 'x-svcaccesstoken': token },
        ...pid,
      },
      jwt: { url: guarded, headers: { 'x-svc-jwt': jwt }, ...pid },
      token: { url: guarded, headers: { 'x-svcaccesstoken': token }, ...pid },
    };
    const pinning = server.child.pid === undefined ? 'not pinned' : pinApart(server.child.pid);
    console.log(`store: ${store}; ${pinning}; ${BASELINE_WHY}`);
    for (const mode of MODES) await load(`warm-up ${mode}`, { ...targets[mode], durationS: 2 });
    // The machine's speed drifts by tens of percent from one run to the next: the five are measured in short
    // rounds, side by side, with their order rotated each round, and compared over all rounds together.
    const runs: Record<Mode, Figure[]> = { open: [], openJwt: [], openToken: [], jwt: [], token: [] };
    const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < MODES.length; k++) {
        const mode = MODES[(i + k) % MODES.length] as Mode;
        runs[mode].push(await load(`round ${i + 1}: ${LABELS[mode]}`, targets[mode]));
      }
    }
    // The same five at a fixed arrival rate, below what the server can take: both ends then wake as often in
    // each run, and the server's CPU time per request is the cost of the request itself.
    const rate = Math.round(FIXED_RATE_SHARE * median(runs.open.map((f) => f.requestsPerSecond)));
    const fixed: Record<Mode, Figure[]> = { open: [], openJwt: [], openToken: [], jwt: [], token: [] };
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < MODES.length; k++) {
        const mode = MODES[(i + k) % MODES.length] as Mode;
        const name = `fixed rate ${rate}/s, round ${i + 1}: ${LABELS[mode]}`;
        fixed[mode].push(await load(name, { ...targets[mode], overallRate: rate }));
      }
    }
    const layer = {
      open: await layerNanos(server.url, apiKey, {}, true),
      jwt: await layerNanos(server.url, apiKey, { 'x-svc-jwt': jwt }),
      token: await layerNanos(server.url, apiKey, { 'x-svcaccesstoken': token }),
    };
    const healthz = await load('for scale: GET /healthz', { url: `${server.url}/healthz` });
    const realRoute = await load('for scale: GET /restv2/auth/game/{apiKey}/permissions with X-SVC-JWT', {
      url: `${server.url}/restv2/auth/game/${apiKey}/permissions`,
      headers: { 'x-svc-jwt': jwt },
    });

    const total = (mode: Mode) => runs[mode].reduce((sum, f) => sum + f.requestsPerSecond, 0);
    const cpu = (mode: Mode) => median(runs[mode].map((f) => f.serverCpuMicrosPerRequest ?? 0));
    const perRound = (mode: Mode, baseline: Mode) =>
      runs[mode].map((f, i) => round3(f.requestsPerSecond / (runs[baseline][i]?.requestsPerSecond ?? 1)));
    const fixedCpuRatio = (mode: Mode, baseline: Mode) =>
      median(
        fixed[mode].map((f, i) =>
          round3((fixed[baseline][i]?.serverCpuMicrosPerRequest ?? 0) / (f.serverCpuMicrosPerRequest ?? 1)),
        ),
      );
    const summary = (mode: 'jwt' | 'token', sameBytes: 'openJwt' | 'openToken') => ({
      // Each round's ratio compares runs a few seconds apart; their median shrugs off a round the machine slowed.
      medianRatio: median(perRound(mode, 'open')),
      perRoundRatios: perRound(mode, 'open'),
      // All rounds together: requests served with the credential over requests served without, same durations.
      pooledRatio: round3(total(mode) / total('open')),
      // Against the open route sent the same header, which it ignores: the same bytes on the wire both ways, so
      // that the difference is the checks alone, not the carrying of a 40- or 500-character header.
      medianRatioSameBytes: median(perRound(mode, sameBytes)),
      perRoundRatiosSameBytes: perRound(mode, sameBytes),
      pooledRatioSameBytes: round3(total(mode) / total(sameBytes)),
      medianServerCpuMicrosPerRequest: cpu(mode),
      // At a fixed rate: each round's server CPU per request without a credential over with it; 1 is free.
      fixedRateCpuRatio: fixedCpuRatio(mode, 'open'),
      fixedRateCpuRatioSameBytes: fixedCpuRatio(mode, sameBytes),
      fixedRateServerCpuMicrosPerRequest: median(fixed[mode].map((f) => f.serverCpuMicrosPerRequest ?? 0)),
      // The hook's own CPU per request (its promise-free fast path: remembered credential), less the same call on
      // a route without a requirement, and what that cost is against the unauthenticated request's server CPU.
      layerNanosPerRequest: layer[mode] - layer.open,
      layerShareOfOpenRequest: round3((layer[mode] - layer.open) / 1000 / cpu('open')),
    });
    const result = {
      store,
      pinning,
      baseline: BASELINE_WHY,
      rounds,
      secondsPerRun: Number(process.env.BENCH_SECONDS ?? 5),
      medianServerCpuMicrosPerRequestOpen: cpu('open'),
      fixedRate: rate,
      fixedRateServerCpuMicrosPerRequestOpen: median(fixed.open.map((f) => f.serverCpuMicrosPerRequest ?? 0)),
      jwt: summary('jwt', 'openJwt'),
      token: summary('token', 'openToken'),
      goal: 'authentication and permission check cost under 10% of throughput (ratio at least 0.9)',
    };
    console.log(
      `authenticated/unauthenticated throughput, median of ${rounds} rounds: JWT ${result.jwt.medianRatio}, ` +
        `access token ${result.token.medianRatio} (all rounds pooled: JWT ${result.jwt.pooledRatio}, access token ` +
        `${result.token.pooledRatio}); against the open route sent the same header: JWT ` +
        `${result.jwt.medianRatioSameBytes}, access token ${result.token.medianRatioSameBytes} (pooled: JWT ` +
        `${result.jwt.pooledRatioSameBytes}, access token ${result.token.pooledRatioSameBytes}); the hook alone: ` +
        `JWT ${result.jwt.layerNanosPerRequest} ns, access token ${result.token.layerNanosPerRequest} ns per request ` +
        `(unauthenticated request: ${result.medianServerCpuMicrosPerRequestOpen} µs of server CPU)`,
    );
    console.log(
      `at ${rate} req/s, server CPU per request without/with the credential: JWT ${result.jwt.fixedRateCpuRatio}, ` +
        `access token ${result.token.fixedRateCpuRatio}; same header sent: JWT ` +
        `${result.jwt.fixedRateCpuRatioSameBytes}, access token ${result.token.fixedRateCpuRatioSameBytes}`,
    );
    writeResults('auth', {
      figures: [...MODES.flatMap((m) => runs[m]), ...MODES.flatMap((m) => fixed[m]), healthz, realRoute],
      ...result,
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
