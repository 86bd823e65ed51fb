// The data service's core: one function per operation, which the data routes call once each, with the database
// errors of its store calls translated (400, 503: db-errors.ts) here rather than by each route.
import type pg from 'pg';
import type { DataQuery } from './data-query.js';
import {
  type DataItem,
  deleteAllItems,
  deleteItem,
  getItem,
  type PutInput,
  putItem,
  queryItems,
  type TypeScope,
} from './data-service.js';
import { type DataType, loadDataTypes, requireDataType } from './data-types.js';
import { withDbErrors } from './db-errors.js';
import type { GameScope } from './scope.js';

export interface DataCore {
  /** The declared type and its scope; 404 when the stage declares no type of that short code. */
  requireType(scope: GameScope, shortCode: string): Promise<{ scope: TypeScope; type: DataType }>;
  listTypes(scope: GameScope): Promise<DataType[]>;
  deleteAll(scope: TypeScope): Promise<number>;
  query(scope: TypeScope, query: DataQuery): Promise<{ items: DataItem[]; nextOffset: number | null }>;
  get(scope: TypeScope, id: string): Promise<DataItem>;
  put(scope: TypeScope, id: string, input: PutInput): Promise<DataItem>;
  delete(scope: TypeScope, id: string, versionCheck: number | undefined): Promise<void>;
}

export function makeDataCore(pool: pg.Pool, timeoutMs: number, clock: () => number): DataCore {
  const guarded = <T>(fn: () => Promise<T>) => withDbErrors(pool, undefined, timeoutMs, fn);
  return {
    async requireType(gs, shortCode) {
      const type = await guarded(() => requireDataType(pool, gs.game, gs.stage, shortCode));
      return { scope: { game: gs.game, stage: gs.stage, type: type.shortCode }, type };
    },
    listTypes: (gs) => guarded(() => loadDataTypes(pool, gs.game, gs.stage)),
    deleteAll: (scope) => guarded(() => deleteAllItems(pool, scope, clock())),
    query: (scope, query) => guarded(() => queryItems(pool, scope, query, clock())),
    get: (scope, id) => guarded(() => getItem(pool, scope, id, clock())),
    put: (scope, id, input) => guarded(() => putItem(pool, scope, id, input, clock())),
    delete: (scope, id, versionCheck) => guarded(() => deleteItem(pool, scope, id, clock(), versionCheck)),
  };
}
