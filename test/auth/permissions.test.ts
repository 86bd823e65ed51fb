// The permission catalogue: level rules, scopes, default groups, and docs/permissions.md against the server.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerOf } from '../../src/auth/jwt-access.js';
import {
  CATALOGUE,
  DEFAULT_GROUPS,
  filterByScope,
  isKnownKey,
  levelOf,
  mergePermissions,
  OWNER_PERMISSIONS,
  ROOT_KEYS,
  SCOPES,
} from '../../src/auth/permissions.js';
import { startTestServer, type TestServer } from '../harness.js';
import { type ProbedRoute, probeRequirements } from './route-requirements.js';

describe('permission rules', () => {
  it('levelOf: own entry, else nearest ancestor, else 0', () => {
    const p = { nosql: 2, 'nosql.dataExplorer': 0, admin: 1 } as const;
    expect(levelOf(p, 'nosql.admin')).toBe(2);
    expect(levelOf(p, 'nosql.dataExplorer')).toBe(0);
    expect(levelOf(p, 'admin.snapshots.deep')).toBe(1);
    expect(levelOf(p, 'configurator.events')).toBe(0);
  });

  it('mergePermissions: the highest level per key, ancestors counted, explicit zeros kept where nothing beats them', () => {
    expect(mergePermissions([{ nosql: 1, 'nosql.dataExplorer': 0 }, { 'nosql.dataExplorer': 1 }])).toEqual({
      nosql: 1,
      'nosql.dataExplorer': 1,
    });
    expect(mergePermissions([{ nosql: 2 }, { 'nosql.admin': 0 }])).toEqual({ nosql: 2, 'nosql.admin': 2 });
    expect(mergePermissions([{ nosql: 1, 'nosql.admin': 0 }])).toEqual({ nosql: 1, 'nosql.admin': 0 });
    expect(mergePermissions([])).toEqual({});
  });

  it('filterByScope: only the keys under the scope’s roots (prefix with a dot, not a bare prefix)', () => {
    const p = {
      nosql: 2,
      'nosql.admin': 1,
      nosqlish: 1,
      game: 1,
      configurator: 2,
      admin: 1,
      manage: 2,
    } as never;
    expect(filterByScope(p, 'nosql')).toEqual({ nosql: 2, 'nosql.admin': 1 });
    expect(filterByScope(p, 'config')).toEqual({ game: 1, configurator: 2 });
    expect(filterByScope(p, 'admin')).toEqual({ game: 1, admin: 1, manage: 2 });
  });

  it('lowerOf (what a JWT may do now): on every key the lower of carried and current, unchanged when they agree', () => {
    const sets = [
      ...Object.values(DEFAULT_GROUPS),
      OWNER_PERMISSIONS,
      filterByScope(OWNER_PERMISSIONS, 'nosql'),
      filterByScope(DEFAULT_GROUPS.Developer as never, 'admin'),
      { nosql: 2, 'nosql.dataExplorer': 0 },
      { 'nosql.admin': 1, configurator: 1, 'configurator.events': 2 },
      {},
    ] as Parameters<typeof lowerOf>[0][];
    for (const carried of sets) {
      expect(lowerOf(carried, carried)).toEqual(carried);
      for (const current of sets) {
        const lowered = lowerOf(carried, current);
        for (const { key } of CATALOGUE) {
          const expected = Math.min(levelOf(carried, key), levelOf(current, key));
          expect([key, levelOf(lowered, key)]).toEqual([key, expected]);
        }
      }
    }
    expect(lowerOf({ nosql: 2 }, OWNER_PERMISSIONS)).toEqual({ nosql: 2 });
  });

  it('owner permissions: every root key of the catalogue at 2', () => {
    expect(Object.keys(OWNER_PERMISSIONS).sort()).toEqual([...ROOT_KEYS].sort());
    expect(new Set(Object.values(OWNER_PERMISSIONS))).toEqual(new Set([2]));
  });

  it('default groups: the four named ones, every key in the catalogue, levels 0 to 2', () => {
    expect(Object.keys(DEFAULT_GROUPS).sort()).toEqual([
      'Administrator',
      'DataExplorer',
      'Developer',
      'ReadOnly',
    ]);
    for (const permissions of Object.values(DEFAULT_GROUPS)) {
      for (const [key, level] of Object.entries(permissions)) {
        expect([key, isKnownKey(key), [0, 1, 2].includes(level)]).toEqual([key, true, true]);
      }
    }
    expect(levelOf(DEFAULT_GROUPS.DataExplorer as never, 'nosql.dataExplorer')).toBe(1);
    expect(levelOf(DEFAULT_GROUPS.ReadOnly as never, 'nosql.dataExplorer')).toBe(0);
  });

  it('scopes: at least nosql, config and admin, each root in the catalogue', () => {
    expect(Object.keys(SCOPES)).toEqual(expect.arrayContaining(['nosql', 'config', 'admin']));
    for (const roots of Object.values(SCOPES)) for (const r of roots) expect(ROOT_KEYS).toContain(r);
  });
});

const DOC = readFileSync('docs/permissions.md', 'utf8');

/** The rows of the markdown table that follows `heading`, as trimmed cells. */
function tableAfter(heading: string): string[][] {
  const start = DOC.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/permissions.md has no "${heading}"`);
  const lines = DOC.slice(start).split('\n').slice(1);
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const unquote = (s: string) => s.replace(/^`|`$/g, '');

describe('docs/permissions.md', () => {
  it('Keys table → exactly the keys of the catalogue', () => {
    const keys = tableAfter('## Keys').map((r) => unquote(r[0] as string));
    expect(keys).toEqual(CATALOGUE.map((p) => p.key));
  });

  it('Default groups and JWT scopes tables → exactly the groups and scopes of the code', () => {
    expect(tableAfter('## Default groups').map((r) => r[0])).toEqual(Object.keys(DEFAULT_GROUPS));
    expect(tableAfter('## JWT scopes').map((r) => unquote(r[0] as string))).toEqual(Object.keys(SCOPES));
  });

  describe('Endpoints table against what the running server (every role) requires', () => {
    let server: TestServer;
    let probed: ProbedRoute[];
    beforeAll(async () => {
      server = await startTestServer();
      probed = await probeRequirements(server);
    }, 120_000);
    afterAll(() => server.close());

    const NAMES: Record<string, string> = { basic: 'Basic', token: 'token', jwt: 'JWT' };
    function row(route: ProbedRoute): string {
      const q = route.requirement;
      const who =
        q.kind === 'game'
          ? `\`${q.key}\` | ${q.level}`
          : `${{ public: 'public', admin: 'administrator', user: 'any user' }[q.kind]} | –`;
      const credentials = q.kind === 'public' ? '–' : q.credentials.map((c) => NAMES[c]).join(', ');
      return `${route.method} | \`${route.path}\` | ${who} | ${credentials}`;
    }

    it('every route → one row with its key, level and credentials; no row for a route that does not exist', () => {
      const documented = tableAfter('## Endpoints').map((r) => r.slice(0, 5).join(' | '));
      expect(new Set(documented).size).toBe(documented.length);
      // A failure's diff shows the rows exactly as the table writes them (plus a Notes cell): copy them over.
      expect([...new Set(probed.map(row))].sort()).toEqual([...documented].sort());
    });
  });
});
