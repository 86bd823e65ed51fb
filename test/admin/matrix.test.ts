// Every administration route × (no credential, expired token and JWT, wrong game, unknown game, too-low level, enough).
import { beforeAll, describe, expect, it } from 'vitest';
import { registerAdminRoutes } from '../../src/admin/routes.js';
import { type DeclaredRoute, declaredRoutes, describeMatrix, routeShape } from '../auth/matrix.js';
import { ADMIN_ROWS, PUSH_ENV, PUSH_ROWS } from './matrix-rows.js';

describeMatrix('administration routes', ADMIN_ROWS, { env: PUSH_ENV });

describe('the administration matrix covers every route', () => {
  let declared: DeclaredRoute[];
  beforeAll(async () => {
    declared = await declaredRoutes([registerAdminRoutes]);
  });

  it('each route of the admin registrar → exactly one row, with the permission and credentials it declares', () => {
    const rows = [...ADMIN_ROWS, ...PUSH_ROWS];
    const table = rows.map((r) => routeShape(r.method, r.path)).sort();
    expect(new Set(table).size).toBe(table.length);
    expect(table).toEqual(declared.map((d) => d.shape).sort());
    for (const route of declared) {
      const row = rows.find((r) => routeShape(r.method, r.path) === route.shape);
      expect({ shape: route.shape, need: row?.need, credentials: row?.credentials }).toEqual({
        shape: route.shape,
        need: { permission: route.auth?.permission },
        credentials: route.auth?.credentials,
      });
    }
  });
});
