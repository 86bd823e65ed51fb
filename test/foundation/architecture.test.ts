// The house rules of docs/architecture.md, checked on the sources: every table's statements live in src/store/,
// no room imports a room that imports it back, and no hand-written module passes 400 lines.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** The modules a build ships: TypeScript under src/, without tests, test helpers and development-only modules. */
const modules = [...filesUnder(SRC)]
  .filter((f) => f.endsWith('.ts') && !/\.(test|test-util|dev)\.ts$/.test(f))
  .map((f) => ({ path: relative(SRC, f), text: readFileSync(f, 'utf8') }));

const inStore = (path: string) => path.startsWith('store/');

const tables = [...filesUnder(join(SRC, 'store/migrations'))]
  .filter((f) => f.endsWith('.sql'))
  .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)])
  .map((m) => m[1]!);

/** A string literal that opens with a statement: `SELECT ...`, 'BEGIN', `INSERT INTO ...`. */
const STATEMENT =
  /['`"]\s*(?:(?:SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|SAVEPOINT|RELEASE|CREATE|DROP|ALTER|LOCK|SET|RESET|EXPLAIN|ANALYZE|WITH)\s|(?:BEGIN|COMMIT|ROLLBACK)\b)/;

/** A statement naming the table: FROM t, INTO t, UPDATE t, JOIN t, TABLE t. */
const naming = (table: string) => new RegExp(`\\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\\s+${table}\\b`);

/** The room a module belongs to: its folder under src/, or undefined for the files at src/ itself. */
const roomOf = (path: string) => (path.includes('/') ? path.split('/')[0] : undefined);

function roomImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { path, text } of modules) {
    const from = roomOf(path);
    if (!from) continue;
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const to = roomOf(relative(SRC, resolve(SRC, dirname(path), m[1]!)));
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** Every room that reaches back to where it started, as the path that does. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  for (const start of graph.keys()) {
    const seen = new Set<string>();
    const walk = (room: string, path: string[]) => {
      for (const next of graph.get(room) ?? []) {
        if (next === start) found.push([...path, next].join(' -> '));
        else if (!seen.has(next)) {
          seen.add(next);
          walk(next, [...path, next]);
        }
      }
    };
    walk(start, [start]);
  }
  return found;
}

describe('architecture (docs/architecture.md)', () => {
  it('the migrations create the tables this test looks for', () => {
    expect(tables).toEqual(expect.arrayContaining(['nosql_documents', 'accounts', 'games', 'audit_log']));
  });

  it('no SQL statement outside src/store/', () => {
    const outside = modules.filter((m) => !inStore(m.path) && STATEMENT.test(m.text)).map((m) => m.path);
    expect(outside).toEqual([]);
  });

  it('every table is named in statements under src/store/ only', () => {
    const outside = tables.flatMap((table) =>
      modules.filter((m) => !inStore(m.path) && naming(table).test(m.text)).map((m) => `${table}: ${m.path}`),
    );
    expect(outside).toEqual([]);
  });

  it('no room imports a room that imports it back (directly or through others)', () => {
    const graph = roomImports();
    expect(graph.get('nosql')?.has('config') ?? false).toBe(false);
    expect(graph.get('config')?.has('nosql') ?? false).toBe(false);
    expect(graph.get('auth')?.has('http') ?? false).toBe(false);
    expect(graph.get('http')?.has('auth') ?? false).toBe(false);
    expect(cycles(graph)).toEqual([]);
  });

  it('no module under src/ passes 400 lines, but for the generated client types', () => {
    const long = modules
      .filter((m) => m.text.split('\n').length > 400 && !/^\/\/ .*\n\/\/ .*Do not edit/.test(m.text))
      .map((m) => m.path);
    expect(long).toEqual([]);
  });
});
