// Collection and database statistics in MongoDB's shape, computed with SQL over the game's rows.
import { documentSizes } from '../store/documents.js';
import { stageIndexTotals } from '../store/indexes.js';
import { indexSizes, listIndexes } from './indexes.js';
import type { Db, GameScope, Scope } from './scope.js';

export interface CollectionStats {
  ns: string;
  count: number;
  size: number;
  avgObjSize: number;
  nindexes: number;
  totalIndexSize: number;
  indexSizes: Record<string, number>;
}

export interface DatabaseStats {
  db: string;
  stage: string;
  collections: number;
  objects: number;
  avgObjSize: number;
  dataSize: number;
  indexes: number;
  indexSize: number;
}

export async function collectionStats(db: Db, scope: Scope): Promise<CollectionStats> {
  const { count, size } = await documentSizes(db, scope);
  const sizes = await indexSizes(db, scope);
  return {
    ns: `${scope.game}.${scope.collection}`,
    count,
    size,
    avgObjSize: count === 0 ? 0 : Math.round(size / count),
    nindexes: (await listIndexes(db, scope)).length,
    totalIndexSize: Object.values(sizes).reduce((a, b) => a + b, 0),
    indexSizes: sizes,
  };
}

/** `collections` is the number of listed collections, which the caller knows. */
export async function databaseStats(db: Db, scope: GameScope, collections: number): Promise<DatabaseStats> {
  const docs = await documentSizes(db, { game: scope.game, stage: scope.stage });
  const idx = await stageIndexTotals(db, scope);
  const objects = docs.count;
  const dataSize = docs.size;
  return {
    db: scope.game,
    stage: scope.stage,
    collections,
    objects,
    avgObjSize: objects === 0 ? 0 : Math.round(dataSize / objects),
    dataSize,
    indexes: idx.count + collections,
    indexSize: idx.size,
  };
}
