// Which collections a game has in a stage, the group and allowed actions of each, and meta/runtime creation.
import type pg from 'pg';
import {
  createdCollections,
  createdKind,
  forgetCollection,
  recordCollections,
} from '../store/collections.js';
import { withTransaction } from '../store/db.js';
import { removeAll } from '../store/documents.js';
import { nosqlErrors } from './errors.js';
import { type DdlOptions, dropPgIndex, forgetIndexes } from './indexes.js';
import type { Db, GameScope, Scope, Stage } from './scope.js';
import { checkCollectionName } from './scope.js';
import { loadStageEntities } from './stage-config.js';

export type Action =
  | 'FIND'
  | 'COUNT'
  | 'INSERT'
  | 'UPDATE'
  | 'REMOVE'
  | 'INDEX'
  | 'AGGREGATE'
  | 'DROP'
  | 'STATS';
export type Group = 'System' | 'Leaderboards' | 'Running Totals' | 'Runtime' | 'Meta';

export interface CollectionEntry {
  name: string;
  optionGroup: Group;
  actions: Action[];
}

const ALL_ACTIONS: readonly Action[] = [
  'FIND',
  'COUNT',
  'INSERT',
  'UPDATE',
  'REMOVE',
  'INDEX',
  'AGGREGATE',
  'DROP',
  'STATS',
];
const WRITES: readonly Action[] = ['INSERT', 'UPDATE', 'REMOVE', 'DROP'];
const READ_AND_INDEX: readonly Action[] = ['FIND', 'COUNT', 'INDEX', 'AGGREGATE', 'STATS'];

export const SYSTEM_COLLECTIONS = ['player', 'challengeInstance', 'externalAuthentication'] as const;
export const RUNTIME_PREFIX = 'script.';
export const META_PREFIX = 'meta.';

/** The collections the configuration makes; the runtime data server only reads them. */
export type ConfiguredCollections = (
  db: Db,
  scope: GameScope,
) => Promise<{ runningTotals: string[]; leaderboards: string[] }>;

/** Preview lists what the working configuration makes, Live what the published snapshot makes (none before it). */
export const configuredCollections: ConfiguredCollections = async (db, scope) => {
  const stage = await loadStageEntities(db, scope).catch((e: { code?: string }) => {
    // A nosql server on its own database has no configuration tables: it knows no configured collections.
    if (e.code === '42P01') return null;
    throw e;
  });
  return {
    runningTotals: (stage?.config['~runningTotals'] ?? []).map((r) => `${r.shortCode}-runningTotal`),
    leaderboards: (stage?.config['~leaderboards'] ?? []).map((l) => `${l.shortCode}-leaderboard`),
  };
};

function actionsOf(group: Group, stage: Stage): Action[] {
  switch (group) {
    case 'System':
      return ALL_ACTIONS.filter((a) => a !== 'DROP');
    case 'Leaderboards':
      return [...READ_AND_INDEX];
    case 'Meta':
      return stage === 'live' ? ALL_ACTIONS.filter((a) => !WRITES.includes(a)) : [...ALL_ACTIONS];
    default:
      return [...ALL_ACTIONS];
  }
}

function entry(name: string, group: Group, stage: Stage): CollectionEntry {
  return { name, optionGroup: group, actions: actionsOf(group, stage) };
}

/** The collection's listing entry, or 404 when it does not exist in this stage. */
export async function resolveCollection(
  db: Db,
  scope: Scope,
  configured: ConfiguredCollections,
): Promise<CollectionEntry> {
  const name = scope.collection;
  if ((SYSTEM_COLLECTIONS as readonly string[]).includes(name)) return entry(name, 'System', scope.stage);
  if (name.startsWith(RUNTIME_PREFIX) || name.startsWith(META_PREFIX)) {
    const kind = await createdKind(db, scope);
    if (kind === 'runtime') return entry(name, 'Runtime', scope.stage);
    if (kind === 'meta') return entry(name, 'Meta', scope.stage);
    throw nosqlErrors.collectionNotFound(name);
  }
  if (name.endsWith('-leaderboard') || name.endsWith('-runningTotal')) {
    const config = await configured(db, scope);
    if (config.leaderboards.includes(name)) return entry(name, 'Leaderboards', scope.stage);
    if (config.runningTotals.includes(name)) return entry(name, 'Running Totals', scope.stage);
  }
  throw nosqlErrors.collectionNotFound(name);
}

/** 403 naming the action unless the collection's group allows every one of `needed`. */
export function requireActions(collection: CollectionEntry, stage: Stage, ...needed: Action[]): void {
  for (const action of needed) {
    if (collection.actions.includes(action)) continue;
    if (collection.optionGroup === 'Meta' && stage === 'live') {
      throw nosqlErrors.metaReadOnlyInLive(action, collection.name);
    }
    throw nosqlErrors.actionNotAllowed(action, collection.name);
  }
}

export async function listCollections(
  db: Db,
  scope: GameScope,
  configured: ConfiguredCollections,
): Promise<CollectionEntry[]> {
  const config = await configured(db, scope);
  const rows = await createdCollections(db, scope);
  const sorted = (names: string[]) => [...new Set(names)].sort();
  return [
    ...SYSTEM_COLLECTIONS.map((n) => entry(n, 'System', scope.stage)),
    ...sorted(config.leaderboards).map((n) => entry(n, 'Leaderboards', scope.stage)),
    ...sorted(config.runningTotals).map((n) => entry(n, 'Running Totals', scope.stage)),
    ...rows.filter((r) => r.kind === 'runtime').map((r) => entry(r.collection, 'Runtime', scope.stage)),
    ...rows.filter((r) => r.kind === 'meta').map((r) => entry(r.collection, 'Meta', scope.stage)),
  ];
}

/** `playerTagCounter` → `script.playerTagCounter`; a name that already has the prefix keeps it. */
function prefixedName(name: string, prefix: string): string {
  return checkCollectionName(name.startsWith(prefix) ? name : `${prefix}${name}`);
}

/**
 * Creates (or keeps) a meta or runtime collection; answers its full name. Creating one that exists is not an
 * error, so deployment scripts may run it every time. Meta collections are created only in Preview.
 */
export async function createCollection(
  db: Db,
  scope: GameScope,
  name: string,
  kind: 'meta' | 'runtime',
  nowMs: number,
): Promise<string> {
  const full = prefixedName(name, kind === 'meta' ? META_PREFIX : RUNTIME_PREFIX);
  if (kind === 'meta' && scope.stage === 'live') throw nosqlErrors.metaReadOnlyInLive('CREATE', full);
  await recordCollections(db, scope, new Map([[full, kind]]), new Date(nowMs));
  return full;
}

/**
 * Removes the collection's documents and indexes; a created (meta or runtime) collection is forgotten too,
 * while a configured one stays listed, empty. The PostgreSQL indexes are dropped after the commit.
 */
export async function dropCollection(
  pool: pg.Pool,
  scope: Scope,
  group: Group,
  ddl: DdlOptions,
): Promise<number> {
  const { removed, pgNames } = await withTransaction(pool, async (client) => {
    // Indexes first: their count entries go in one statement, and the removal then has none to delete.
    const pgNames = await forgetIndexes(client, scope);
    const removed = await removeAll(client, scope);
    if (group === 'Runtime' || group === 'Meta') {
      await forgetCollection(client, scope);
    }
    return { removed, pgNames };
  });
  for (const name of pgNames) await dropPgIndex(pool, name, ddl);
  return removed;
}
