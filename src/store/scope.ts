// The store's one connection type and the tenant scope every repository call takes first (game, stage, and the
// collection where it applies).
import type pg from 'pg';

/** A pool, or one of its connections (inside a transaction). */
export type Db = pg.Pool | pg.PoolClient;

export type Stage = 'live' | 'preview';
export const STAGES: readonly Stage[] = ['live', 'preview'];

/** One game's data in one stage. */
export interface GameScope {
  game: string;
  stage: Stage;
}

/** One collection of one game in one stage. */
export interface Scope extends GameScope {
  collection: string;
}
