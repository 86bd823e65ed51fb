// Collection and database statistics in MongoDB's shape, computed with SQL over the game's rows.
import { indexSizes, listIndexes } from './indexes.js';
import type { Db, GameScope, Scope } from './scope.js';
import { query } from './sql.js';

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
  const { rows } = await query<{ n: string; size: string }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(pg_column_size(doc)), 0)::int8 AS size FROM nosql_documents
     WHERE game_id = $1 AND stage = $2 AND collection = $3`,
    [scope.game, scope.stage, scope.collection],
  );
  const count = Number(rows[0]?.n ?? 0);
  const size = Number(rows[0]?.size ?? 0);
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
  const { rows } = await query<{ n: string; size: string }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(pg_column_size(doc)), 0)::int8 AS size FROM nosql_documents
     WHERE game_id = $1 AND stage = $2`,
    [scope.game, scope.stage],
  );
  const { rows: idx } = await query<{ n: string; size: string | null }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(pg_relation_size(to_regclass(pg_name))), 0)::int8 AS size
     FROM nosql_indexes WHERE game_id = $1 AND stage = $2`,
    [scope.game, scope.stage],
  );
  const objects = Number(rows[0]?.n ?? 0);
  const dataSize = Number(rows[0]?.size ?? 0);
  return {
    db: scope.game,
    stage: scope.stage,
    collections,
    objects,
    avgObjSize: objects === 0 ? 0 : Math.round(dataSize / objects),
    dataSize,
    indexes: Number(idx[0]?.n ?? 0) + collections,
    indexSize: Number(idx[0]?.size ?? 0),
  };
}
