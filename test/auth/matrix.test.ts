// Every route of the auth role and the games routes × (no credential, expired, wrong game, too-low level, enough).
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthRequirement } from '../../src/auth/authenticate.js';
import { registerGameRoutes } from '../../src/config/games-routes.js';
import {
  authRoutesRegistrar,
  type DeclaredRoute,
  declaredRoutes,
  describeMatrix,
  type MatrixRow,
  type Need,
  routeShape,
} from './matrix.js';
import { AUTH_ROWS, GAME_ROWS } from './matrix-rows.js';

describeMatrix('auth role routes', AUTH_ROWS);
describeMatrix('games routes', GAME_ROWS);
// One route of the nosql role, to show a JWT-only table: access tokens and Basic are refused kinds there.
// The nosql role's own table (every /live and /preview route) belongs beside its tests.
describeMatrix('a nosql role route', [
  {
    method: 'GET',
    path: '/live/restv2/game/{gameApiKey}/mongo/collections',
    need: { permission: ['nosql', 1] },
    credentials: ['jwt'],
    ok: 200,
  },
]);

function needOf(auth: AuthRequirement | undefined): Need {
  if (!auth) return { public: true };
  if (auth.permission) return { permission: auth.permission };
  if (auth.admin) return { admin: true };
  return { user: true };
}

// Routes declared "any user" whose handler then requires a part in the game: the table says game at level 0.
const HANDLER_CHECKED = new Set(['GET /restv2/auth/game/{}/jwt', 'GET /restv2/auth/game/{}/jwt/{}']);

describe('the matrix covers every route', () => {
  let declared: DeclaredRoute[];
  beforeAll(async () => {
    declared = await declaredRoutes([authRoutesRegistrar, registerGameRoutes]);
  });
  const rows: MatrixRow[] = [...AUTH_ROWS, ...GAME_ROWS];

  it('each route registered by the auth and games registrars → exactly one row, and no row without a route', () => {
    const table = rows.map((r) => routeShape(r.method, r.path)).sort();
    expect(new Set(table).size).toBe(table.length);
    expect(table).toEqual(declared.map((d) => d.shape).sort());
  });

  it('each row → the same permission and credentials the route declares', () => {
    for (const route of declared) {
      const row = rows.find((r) => routeShape(r.method, r.path) === route.shape) as MatrixRow;
      const expected = HANDLER_CHECKED.has(route.shape) ? { permission: ['game', 0] } : needOf(route.auth);
      expect({ shape: route.shape, need: row.need }).toEqual({ shape: route.shape, need: expected });
      expect({ shape: route.shape, credentials: row.credentials }).toEqual({
        shape: route.shape,
        credentials: route.auth?.credentials,
      });
    }
  });
});
