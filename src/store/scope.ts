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

// Names that reach index DDL as literals (DDL takes no bind parameters) keep to a plain alphabet.
export const GAME_NAME = /^[A-Za-z0-9_-]{1,128}$/;
export const COLLECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

export function isValidGame(game: string): boolean {
  return GAME_NAME.test(game);
}

/** Throws unless the scope passes the patterns above; index DDL calls it before quoting the parts. */
export function assertSafeScope(scope: Scope): void {
  if (!isValidGame(scope.game) || !STAGES.includes(scope.stage) || !COLLECTION_NAME.test(scope.collection)) {
    throw new Error('unsafe scope reached index DDL');
  }
}
