// The nosql room's core: one function per operation, which the routes call once each. Every function here
// translates the database errors of its store calls (409, 400, 503: db-errors.ts), so no route wraps a call;
// the translation needs the pool (a unique violation is named by its index, read from the catalogue), so it
// happens here rather than in the store functions, which also run inside transactions and on compute threads.
import type pg from 'pg';
import type { IndexField } from '../query/indexes.js';
import {
  type Action,
  type CollectionEntry,
  type ConfiguredCollections,
  createCollection,
  dropCollection,
  listCollections,
  requireActions,
  resolveCollection,
} from './collections.js';
import type { DocumentCompute, DocumentInput, DocumentOutput } from './compute-tasks.js';
import { withDbErrors } from './db-errors.js';
import { mayReadOthers } from './foreign-reads.js';
import { createIndex, type DdlOptions, dropIndex, type IndexDescription, listIndexes } from './indexes.js';
import type { GameScope, Scope } from './scope.js';
import { type CollectionStats, collectionStats, type DatabaseStats, databaseStats } from './stats.js';

export interface CoreOptions {
  pool: pg.Pool;
  compute: DocumentCompute;
  configured: ConfiguredCollections;
  timeoutMs: number;
  ddl: DdlOptions;
  clock: () => number;
}

/** The document verbs: each a compute task (document-core.ts), run where its size says. */
export type DocumentVerb =
  | 'find'
  | 'explain'
  | 'count'
  | 'insert'
  | 'save'
  | 'update'
  | 'remove'
  | 'aggregate'
  | 'findAndModify'
  | 'distinct';

export interface NosqlCore {
  /** The collection, checked to exist in the scope's stage and to allow every one of `actions`. */
  resolveCollection(scope: Scope, ...actions: Action[]): Promise<CollectionEntry>;
  runDocuments<N extends DocumentVerb>(
    name: N,
    input: DocumentInput<N>,
    size: number,
  ): Promise<DocumentOutput<N>>;
  /**
   * An aggregation: the stage's collections are listed first when the body may name others ($lookup,
   * $unionWith), for the task to check them as a find would be checked.
   */
  aggregate(input: DocumentInput<'aggregate'>): Promise<string>;
  listCollections(scope: GameScope): Promise<CollectionEntry[]>;
  databaseStats(scope: GameScope): Promise<DatabaseStats>;
  collectionStats(scope: Scope): Promise<CollectionStats>;
  dropCollection(scope: Scope, collection: CollectionEntry): Promise<number>;
  /** Creates (or keeps) scope.collection, made a meta or runtime name; answers the full name. */
  createCollection(scope: Scope, kind: 'meta' | 'runtime'): Promise<string>;
  listIndexes(scope: Scope): Promise<IndexDescription[]>;
  createIndex(scope: Scope, spec: { name: string; keys: IndexField[]; unique: boolean }): Promise<void>;
  dropIndex(scope: Scope, name: string): Promise<void>;
}

export function makeCore(o: CoreOptions): NosqlCore {
  const guarded = <T>(scope: Scope | undefined, fn: () => Promise<T>) =>
    withDbErrors(o.pool, scope, o.timeoutMs, fn);
  return {
    async resolveCollection(scope, ...actions) {
      const found = await guarded(scope, () => resolveCollection(o.pool, scope, o.configured));
      requireActions(found, scope.stage, ...actions);
      return found;
    },
    runDocuments: (name, input, size) =>
      guarded((input as { scope: Scope }).scope, () => o.compute.run(name, input, size, o.pool)),
    aggregate: (input) =>
      guarded(input.scope, async () => {
        const collections = mayReadOthers(input.body)
          ? await listCollections(o.pool, input.scope, o.configured)
          : undefined;
        // Always on a compute thread: the stages after the leading ones run over documents of any size.
        return o.compute.run('aggregate', { ...input, collections }, Number.POSITIVE_INFINITY, o.pool);
      }),
    listCollections: (scope) => guarded(undefined, () => listCollections(o.pool, scope, o.configured)),
    databaseStats: (scope) =>
      guarded(undefined, async () => {
        const listed = await listCollections(o.pool, scope, o.configured);
        return databaseStats(o.pool, scope, listed.length);
      }),
    collectionStats: (scope) => guarded(scope, () => collectionStats(o.pool, scope)),
    dropCollection: (scope, collection) =>
      guarded(scope, () => dropCollection(o.pool, scope, collection.optionGroup, o.ddl)),
    createCollection: (scope, kind) =>
      guarded(scope, () => createCollection(o.pool, scope, scope.collection, kind, o.clock())),
    listIndexes: (scope) => guarded(scope, () => listIndexes(o.pool, scope)),
    createIndex: async (scope, spec) => {
      await guarded(scope, () => createIndex(o.pool, scope, spec, o.ddl));
    },
    dropIndex: (scope, name) => guarded(scope, () => dropIndex(o.pool, scope, name, o.ddl)),
  };
}
