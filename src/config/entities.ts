// Running totals, leaderboards and indexed types: top-level entities kept the same way, one kind descriptor each.
import type pg from 'pg';
import type { PlaybaseError } from '../errors.js';
import {
  buildIndexedType,
  buildLeaderboard,
  buildRunningTotal,
  type IndexedTypeBody,
  ids,
  type LeaderboardBody,
  type RunningTotalBody,
} from './config-build.js';
import { changeConfig, loadConfigDoc } from './config-store.js';
import type { ConfigDoc, IndexedType, Leaderboard, RunningTotal } from './config-types.js';
import {
  type Issue,
  idIssues,
  indexConfig,
  referrersOf,
  throwIfIssues,
  validateIndexedType,
  validateLeaderboard,
  validateRunningTotal,
} from './config-validate.js';
import { configErrors } from './errors.js';
import { shortCodeIssues } from './events.js';
import type { AuditWrap, Db } from './game-lock.js';

interface Entity {
  '@id': string;
  shortCode: string;
}

export interface EntityKind<T extends Entity, B> {
  collection: '~runningTotals' | '~leaderboards' | '~indexedTypes';
  id(shortCode: string): string;
  build(body: B): T;
  validate(entity: T, doc: ConfigDoc): Issue[];
  notFound(shortCode: string): PlaybaseError;
}

export const runningTotalKind: EntityKind<RunningTotal, RunningTotalBody> = {
  collection: '~runningTotals',
  id: ids.runningTotal,
  build: buildRunningTotal,
  validate: (rt, doc) => validateRunningTotal(rt, indexConfig(doc), ''),
  notFound: configErrors.runningTotalNotFound,
};

export const leaderboardKind: EntityKind<Leaderboard, LeaderboardBody> = {
  collection: '~leaderboards',
  id: ids.leaderboard,
  build: buildLeaderboard,
  validate: (lb, doc) => validateLeaderboard(lb, indexConfig(doc), ''),
  notFound: configErrors.leaderboardNotFound,
};

export const indexedTypeKind: EntityKind<IndexedType, IndexedTypeBody> = {
  collection: '~indexedTypes',
  id: ids.indexedType,
  build: buildIndexedType,
  validate: (t) => validateIndexedType(t, ''),
  notFound: configErrors.indexedTypeNotFound,
};

function listOf<T extends Entity>(doc: ConfigDoc, kind: EntityKind<T, unknown>): T[] {
  return doc[kind.collection] as unknown as T[];
}

function find<T extends Entity>(doc: ConfigDoc, kind: EntityKind<T, unknown>, shortCode: string): T {
  const entity = listOf(doc, kind).find((e) => e.shortCode === shortCode);
  if (!entity) throw kind.notFound(shortCode);
  return entity;
}

export async function listEntities<T extends Entity, B>(db: Db, apiKey: string, kind: EntityKind<T, B>) {
  return listOf(await loadConfigDoc(db, apiKey), kind);
}

export async function getEntity<T extends Entity, B>(
  db: Db,
  apiKey: string,
  kind: EntityKind<T, B>,
  shortCode: string,
): Promise<T> {
  return find(await loadConfigDoc(db, apiKey), kind, shortCode);
}

export async function createEntity<T extends Entity, B extends { '@id'?: string | undefined }>(
  pool: pg.Pool,
  apiKey: string,
  kind: EntityKind<T, B>,
  body: B,
  audit?: AuditWrap,
): Promise<T> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const entity = kind.build(body);
      throwIfIssues([...idIssues(body['@id'], entity['@id'], '@id'), ...kind.validate(entity, doc)]);
      const list = listOf(doc, kind);
      if (list.some((e) => e.shortCode === entity.shortCode)) throw configErrors.duplicate(entity['@id']);
      list.push(entity);
      return entity;
    },
    audit,
  );
}

/** Changes only the fields sent (an array sent replaces the whole array). */
export async function updateEntity<
  T extends Entity,
  B extends { '@id'?: string | undefined; shortCode: string },
>(
  pool: pg.Pool,
  apiKey: string,
  kind: EntityKind<T, B>,
  shortCode: string,
  patch: Partial<B>,
  audit?: AuditWrap,
): Promise<T> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const current = find(doc, kind, shortCode);
      const next = kind.build({ ...(current as unknown as B), ...patch, shortCode });
      throwIfIssues([
        ...shortCodeIssues(patch.shortCode, shortCode),
        ...idIssues(patch['@id'], current['@id'], '@id'),
        ...kind.validate(next, doc),
      ]);
      const list = listOf(doc, kind);
      list[list.indexOf(current)] = next;
      return next;
    },
    audit,
  );
}

export async function deleteEntity<T extends Entity, B>(
  pool: pg.Pool,
  apiKey: string,
  kind: EntityKind<T, B>,
  shortCode: string,
  audit?: AuditWrap,
): Promise<void> {
  await changeConfig(
    pool,
    apiKey,
    (doc) => {
      const entity = find(doc, kind, shortCode);
      const by = referrersOf(doc, entity['@id']);
      if (by.length > 0) throw configErrors.inUse(entity['@id'], by);
      const list = listOf(doc, kind);
      list.splice(list.indexOf(entity), 1);
    },
    audit,
  );
}
