// Indexes made through the API: the rules (names, clashes, the limit) and the steps of a build. The statements
// and the DDL are the store's (src/store/indexes.ts).
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { IndexField } from '../query/indexes.js';
import {
  analyzeDocuments,
  buildPgIndex,
  type DdlOptions,
  dropPgIndex,
  forgetIndex,
  type IndexRow,
  indexRows,
  PRIMARY_KEY,
  pgIndexSize,
  recordIndex,
} from '../store/indexes.js';
import { nosqlErrors } from './errors.js';
import type { Db, Scope } from './scope.js';

export { type DdlOptions, dropPgIndex, forgetIndexes } from '../store/indexes.js';

export interface IndexSpec {
  name: string;
  keys: IndexField[];
  unique: boolean;
}

export interface IndexDescription {
  v: 2;
  key: Record<string, 1 | -1>;
  name: string;
  unique?: true;
}

export const ID_INDEX = '_id_';
export const MAX_INDEXES = 64;
const INDEX_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

export function checkIndexName(name: string): string {
  if (!INDEX_NAME.test(name) || name === ID_INDEX) throw nosqlErrors.badIndexName(name.slice(0, 200));
  return name;
}

/** At most 63 bytes; random, so a build left behind by a crash never collides with a later one. */
function newPgName(scope: Scope, name: string): string {
  const hash = createHash('sha256')
    .update(`${scope.game}\0${scope.stage}\0${scope.collection}\0${name}\0`)
    .update(randomBytes(16))
    .digest('hex');
  return `nx_${hash.slice(0, 40)}`;
}

const keyPairs = (keys: IndexField[]) => keys.map((k) => [k.path, k.dir] as [string, 1 | -1]);
const sameKeys = (a: Array<[string, number]>, b: Array<[string, number]>) =>
  JSON.stringify(a) === JSON.stringify(b);

/** 'exists' when an identical index of that name is there already; 409 for any other clash. */
function checkAgainst(rows: IndexRow[], spec: IndexSpec): 'exists' | undefined {
  const pairs = keyPairs(spec.keys);
  const named = rows.find((r) => r.name === spec.name);
  if (named) {
    if (sameKeys(named.keys, pairs) && named.unique === spec.unique) return 'exists';
    throw nosqlErrors.indexConflict(`an index named ${spec.name} exists with other keys or options`);
  }
  const twin = rows.find((r) => sameKeys(r.keys, pairs));
  if (twin) throw nosqlErrors.indexConflict(`index ${twin.name} has the same keys`);
  if (pairs.length === 1 && pairs[0]![0] === '_id' && !spec.unique) {
    throw nosqlErrors.indexConflict(`index ${ID_INDEX} has the same keys`);
  }
  if (rows.length + 1 >= MAX_INDEXES) throw nosqlErrors.tooManyIndexes(MAX_INDEXES);
  return undefined;
}

export async function createIndex(
  pool: pg.Pool,
  scope: Scope,
  spec: IndexSpec,
  options: DdlOptions,
): Promise<'created' | 'exists'> {
  if (checkAgainst(await indexRows(pool, scope), spec)) return 'exists';
  const pgName = newPgName(scope, spec.name);
  try {
    await buildPgIndex(pool, scope, pgName, spec, options);
  } catch (e) {
    // A failed concurrent build leaves an invalid index behind.
    if (options.concurrently) await dropPgIndex(pool, pgName, options).catch(() => {});
    // Existing documents repeat a key: name the index asked for, not its PostgreSQL name.
    if ((e as { code?: string }).code === '23505') throw nosqlErrors.duplicateKey(spec.name);
    throw e;
  }
  const row = { name: spec.name, keys: keyPairs(spec.keys), unique: spec.unique, pg_name: pgName };
  if (await recordIndex(pool, scope, row)) {
    await analyzeDocuments(pool, options);
    return 'created';
  }
  // Another request made an index of this name meanwhile: keep theirs.
  await dropPgIndex(pool, pgName, options);
  return checkAgainst(await indexRows(pool, scope), spec) ?? 'created';
}

export async function listIndexes(db: Db, scope: Scope): Promise<IndexDescription[]> {
  const rows = await indexRows(db, scope);
  return [
    { v: 2, key: { _id: 1 }, name: ID_INDEX },
    ...rows.map((r) => ({
      v: 2 as const,
      key: Object.fromEntries(r.keys) as Record<string, 1 | -1>,
      name: r.name,
      ...(r.unique ? { unique: true as const } : {}),
    })),
  ];
}

export async function dropIndex(
  pool: pg.Pool,
  scope: Scope,
  name: string,
  options: DdlOptions,
): Promise<void> {
  if (name === ID_INDEX) throw nosqlErrors.badIndexName(`${ID_INDEX} cannot be dropped`);
  const pgName = await forgetIndex(pool, scope, name);
  if (pgName === undefined) throw nosqlErrors.indexNotFound(name, scope.collection);
  await dropPgIndex(pool, pgName, options);
}

/** API index names by PostgreSQL name, for explain. */
export async function indexNamesByPgName(db: Db, scope: Scope): Promise<Map<string, string>> {
  const rows = await indexRows(db, scope);
  return new Map([[PRIMARY_KEY, ID_INDEX], ...rows.map((r) => [r.pg_name, r.name] as [string, string])]);
}

/** Sizes in bytes of the collection's indexes, by API name (the _id index is shared by all collections: omitted). */
export async function indexSizes(db: Db, scope: Scope): Promise<Record<string, number>> {
  const rows = await indexRows(db, scope);
  const out: Record<string, number> = {};
  for (const r of rows) {
    out[r.name] = await pgIndexSize(db, r.pg_name);
  }
  return out;
}
