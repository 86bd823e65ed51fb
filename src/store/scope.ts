// The store's one connection type and the tenant scope every repository call takes first (game, stage, and the
// collection where it applies).
import pg from 'pg';

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

/**
 * The scope as three SQL literals, when it passes the patterns above (the literals then hold no quote or
 * backslash to escape); otherwise undefined, and the caller binds it. Reads write their scope this way: the
 * statement's text then names the game and collection, so a plan PostgreSQL caches for the text can use the
 * collection's API indexes, whose partial WHERE holds the same constants (store/document-reads.ts).
 */
export function scopeLiterals(scope: Scope): [string, string, string] | undefined {
  if (!isValidGame(scope.game) || !STAGES.includes(scope.stage) || !COLLECTION_NAME.test(scope.collection))
    return undefined;
  return [pg.escapeLiteral(scope.game), pg.escapeLiteral(scope.stage), pg.escapeLiteral(scope.collection)];
}
