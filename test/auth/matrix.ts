// The authentication matrix: a table of routes, each run as (no credential, expired, wrong game, too-low level,
// enough) with the exact status and error code. Other roles append their own tables and call describeMatrix().

import Fastify, { type LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthRequirement, CredentialKind } from '../../src/auth/authenticate.js';
import { createAuthBackend } from '../../src/auth/backend.js';
import type { Level } from '../../src/auth/permissions.js';
import { registerAuthRoutes } from '../../src/auth/routes.js';
import { inline } from '../../src/compute/compute.js';
import type { Context } from '../../src/context.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { documentTasks } from '../../src/nosql/compute-tasks.js';
import type { App, RoleRegistrar } from '../../src/route/app.js';
import { loadSettings } from '../../src/settings.js';
import { startTestServer } from '../harness.js';
import { type Account, createMatrixFixture, type MatrixFixture, type Method } from './matrix-fixture.js';

export type { Account, MatrixFixture, Method } from './matrix-fixture.js';

/** What a route declares in `config.auth`. */
export type Need =
  | { permission: [key: string, level: Level] }
  | { admin: true }
  | { user: true }
  | { public: true };

export interface Prepared {
  /** Values for the path's `{placeholders}`; `apiKey` here replaces the fixture game. */
  params?: Record<string, string>;
  body?: unknown;
  /** Replaces the credential of the success case (when the caller must be someone special, e.g. the owner). */
  headers?: Record<string, string>;
}

export interface MatrixRow {
  method: Method;
  /** `{apiKey}` and `{gameApiKey}` stand for the fixture game; other `{name}`s come from params or prepare(). */
  path: string;
  need: Need;
  /** Credentials the route accepts; default Basic, access token and JWT. */
  credentials?: CredentialKind[];
  /** Status of the success case. */
  ok: number;
  params?: Record<string, string>;
  body?: unknown;
  /** Builds a fresh target for each success case (routes that create, change or delete something). */
  prepare?: (fx: MatrixFixture, kind: CredentialKind) => Promise<Prepared>;
}

export interface MatrixCase {
  name: string;
  status: number;
  /** Error code expected in the body; undefined for a success. */
  code: string | undefined;
  run(fx: MatrixFixture): Promise<LightMyRequestResponse>;
}

const ALL: CredentialKind[] = ['basic', 'token', 'jwt'];

function urlOf(row: MatrixRow, fx: MatrixFixture, params: Record<string, string> = {}): string {
  const values: Record<string, string> = { apiKey: fx.game, gameApiKey: fx.game, ...row.params, ...params };
  if (params.apiKey) values.gameApiKey = params.apiKey;
  // Refusals happen before the handler looks at the target: a placeholder without a value gets a dummy one.
  return row.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'target'));
}

/** The caller who holds just enough for the row (undefined for public routes). */
function principal(row: MatrixRow, fx: MatrixFixture): Promise<Account> | undefined {
  const need = row.need;
  if ('permission' in need) return fx.holder(need.permission[0], need.permission[1]);
  if ('admin' in need) return Promise.resolve(fx.admin);
  if ('user' in need) return Promise.resolve(fx.member);
  return undefined;
}

function send(row: MatrixRow, headers: (fx: MatrixFixture) => Promise<Record<string, string>>) {
  return async (fx: MatrixFixture) => fx.inject(row.method, urlOf(row, fx), await headers(fx), row.body);
}

function who(row: MatrixRow, fx: MatrixFixture): Promise<Account> {
  return principal(row, fx) as Promise<Account>;
}

function gameCases(row: MatrixRow, key: string, level: Level, accepted: CredentialKind[]): MatrixCase[] {
  const cases: MatrixCase[] = [];
  if (accepted.includes('jwt')) {
    cases.push({
      name: 'wrong game: JWT issued for another game',
      status: 403,
      code: 'JWT_WRONG_GAME',
      run: send(row, async (fx) => fx.credential('jwt', await who(row, fx), fx.otherGame)),
    });
  }
  // A token rather than Basic where both are accepted: Basic costs a scrypt, and its success case covers it.
  const direct = accepted.includes('token') ? 'token' : accepted.find((k) => k !== 'jwt');
  if (direct) {
    cases.push(
      {
        name: `wrong game: ${direct} of an account with no part in the game`,
        status: 403,
        code: 'GAME_ACCESS_DENIED',
        run: send(row, (fx) => fx.credential(direct, fx.stranger)),
      },
      {
        name: `unknown game (${direct})`,
        status: 404,
        code: 'GAME_NOT_FOUND',
        run: async (fx) =>
          fx.inject(
            row.method,
            urlOf(row, fx, { apiKey: 'nosuchgame0000000000' }),
            await fx.credential(direct, await who(row, fx)),
            row.body,
          ),
      },
    );
  }
  if (level > 0) {
    for (const kind of accepted.filter((k) => k !== 'basic')) {
      cases.push({
        name: `too-low level: ${kind} of a collaborator holding ${key} at ${level - 1}`,
        status: 403,
        code: 'PERMISSION_DENIED',
        run: send(row, async (fx) => fx.credential(kind, await fx.holder(key, (level - 1) as Level))),
      });
    }
  }
  return cases;
}

function successCase(row: MatrixRow, kind: CredentialKind): MatrixCase {
  return {
    name: `enough: ${kind}`,
    status: row.ok,
    code: undefined,
    async run(fx) {
      const prepared = (await row.prepare?.(fx, kind)) ?? {};
      const apiKey = prepared.params?.apiKey ?? fx.game;
      const headers = prepared.headers ?? (await fx.credential(kind, await who(row, fx), apiKey));
      const body = 'body' in prepared ? prepared.body : row.body;
      return fx.inject(row.method, urlOf(row, fx, prepared.params), headers, body);
    },
  };
}

/** The cases of one row: no credential, expired, wrong game, too-low level, enough, and refused kinds. */
export function matrixCases(row: MatrixRow): MatrixCase[] {
  const need = row.need;
  if ('public' in need)
    return [
      { ...successCase(row, 'basic'), name: 'no credential (public)', run: send(row, async () => ({})) },
    ];
  const accepted = row.credentials ?? ALL;
  const cases: MatrixCase[] = [
    { name: 'no credential', status: 401, code: 'AUTH_REQUIRED', run: send(row, async () => ({})) },
  ];
  for (const kind of accepted.filter((k) => k !== 'basic')) {
    if (kind === 'jwt' && 'admin' in need) continue;
    cases.push({
      name: `expired ${kind}`,
      status: 401,
      code: 'TOKEN_EXPIRED',
      run: send(row, async (fx) => fx.expired(kind as 'token' | 'jwt', await who(row, fx))),
    });
  }
  if (accepted.length === 1 && accepted[0] === 'basic') {
    cases.push({
      name: 'wrong password',
      status: 401,
      code: 'AUTH_INVALID',
      run: send(row, async (fx) =>
        fx.credential('basic', { ...(await who(row, fx)), password: 'wrong-password' }),
      ),
    });
  }
  if ('permission' in need) cases.push(...gameCases(row, need.permission[0], need.permission[1], accepted));
  if ('admin' in need) {
    cases.push({
      name: 'too-low level: an account that is not the administrator',
      status: 403,
      code: 'ADMIN_REQUIRED',
      run: send(row, (fx) => fx.credential(accepted.includes('token') ? 'token' : 'basic', fx.member)),
    });
  }
  for (const kind of accepted) cases.push(successCase(row, kind));
  for (const kind of ALL.filter((k) => !accepted.includes(k))) {
    cases.push({
      name: `refused kind: ${kind}`,
      status: 401,
      code: 'CREDENTIAL_NOT_ACCEPTED',
      // The caller is a game member so that a real JWT exists; the kind is refused before it is checked.
      run: send(row, (fx) => fx.credential(kind, fx.member)),
    });
  }
  // A JWT is bound to one game: a scoped one of the owner (all its scope's keys at 2) reaches no account route.
  if (!accepted.includes('jwt') && !('permission' in need)) {
    cases.push({
      name: 'refused kind: the owner’s JWT scoped to nosql',
      status: 401,
      code: 'CREDENTIAL_NOT_ACCEPTED',
      run: send(row, (fx) => fx.credential('jwt', fx.owner, fx.game, 'nosql')),
    });
  }
  return cases;
}

/** Accounts whose expired token and JWT the rows need, made before the clock moves. */
function expiredPrincipals(rows: MatrixRow[]) {
  return async (fx: MatrixFixture): Promise<Account[]> => {
    const accounts = await Promise.all(rows.map((row) => principal(row, fx)));
    return [...new Set(accounts.filter((a): a is Account => a !== undefined))];
  };
}

/** (key, level) pairs the rows need: each level and the one below it. */
function holdersOf(rows: MatrixRow[]): [string, Level][] {
  const pairs = new Map<string, [string, Level]>();
  for (const row of rows) {
    if (!('permission' in row.need)) continue;
    const [key, level] = row.need.permission;
    pairs.set(`${key} ${level}`, [key, level]);
    if (level > 0) pairs.set(`${key} ${level - 1}`, [key, (level - 1) as Level]);
  }
  return [...pairs.values()];
}

export interface MatrixOptions {
  env?: Record<string, string>;
  extraRegistrars?: RoleRegistrar[];
}

function parseBody(text: string): { code?: string } {
  try {
    return (JSON.parse(text) as { code?: string } | null) ?? {};
  } catch {
    return {};
  }
}

/** One describe block per table: a fresh server and fixture, then one test per row and case. */
export function describeMatrix(title: string, rows: MatrixRow[], options: MatrixOptions = {}): void {
  describe(title, () => {
    let fx: MatrixFixture | undefined;
    beforeAll(async () => {
      const server = await startTestServer(options.env, {
        ...(options.extraRegistrars ? { extraRegistrars: options.extraRegistrars } : {}),
      });
      try {
        fx = await createMatrixFixture(server, holdersOf(rows), expiredPrincipals(rows));
      } catch (e) {
        await server.close();
        throw e;
      }
    }, 180_000);
    afterAll(() => fx?.server.close());
    for (const row of rows) {
      describe(`${row.method} ${row.path}`, () => {
        for (const c of matrixCases(row)) {
          it(`${c.name} → ${c.status}${c.code ? ` ${c.code}` : ''}`, async () => {
            const res = await c.run(fx as MatrixFixture);
            const body = parseBody(res.body);
            // A success body may hold a field named code of its own: only errors are compared on it.
            const code = c.code === undefined ? undefined : body.code;
            expect({ status: res.statusCode, code }, res.body).toEqual({
              status: c.status,
              code: c.code,
            });
          });
        }
      });
    }
  });
}

/** `/a/:b/c` and `/a/{b}/c` → `/a/{}/c`, to match the table against registered routes. */
export function routeShape(method: string, path: string): string {
  return `${method} ${path.replace(/:\w+|\{\w+\}/g, '{}')}`;
}

export interface DeclaredRoute {
  method: string;
  url: string;
  shape: string;
  auth: AuthRequirement | undefined;
}

/**
 * The routes registrars declare, with their auth requirement, read at registration: nothing is served and no
 * handler runs, so the store is a pool that never connects.
 */
export async function declaredRoutes(registrars: RoleRegistrar[]): Promise<DeclaredRoute[]> {
  const app = Fastify();
  const routes: DeclaredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, shape: routeShape(method, route.url), auth: route.config?.auth });
    }
  });
  const pool = new pg.Pool();
  const ctx: Context = {
    settings: loadSettings({ PLAYBASE_DATA_DIR: '/nonexistent' }),
    store: {
      kind: 'postgres',
      pool,
      listen: async () => ({ isLive: () => false, close: async () => {} }),
      close: () => pool.end(),
    },
    clock: Date.now,
    log: app.log,
    compute: inline(documentTasks),
    metrics: createMetrics(pool),
  };
  for (const register of registrars) await register(app as unknown as App, ctx);
  await app.close();
  await pool.end();
  return routes;
}

/** The registrar of the auth role's routes, as the server builds it. */
export const authRoutesRegistrar: RoleRegistrar = (app, ctx) =>
  registerAuthRoutes(createAuthBackend(ctx, undefined))(app, ctx);
