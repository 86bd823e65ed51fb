// The tenant scope of every repository call (game, stage, collection) and the strict name rules it obeys.
import { type Scope, STAGES, type Stage } from '../store/scope.js';
import { nosqlErrors } from './errors.js';

export { type Db, type GameScope, type Scope, STAGES, type Stage } from '../store/scope.js';

// These names reach index DDL as literals (DDL takes no bind parameters): keep them to a plain alphabet.
const GAME = /^[A-Za-z0-9_-]{1,128}$/;
const COLLECTION = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

function isValidGame(game: string): boolean {
  return GAME.test(game);
}

export function checkCollectionName(name: string): string {
  if (!COLLECTION.test(name) || name.includes('..') || name.endsWith('.')) {
    throw nosqlErrors.badCollectionName(name.slice(0, 200));
  }
  return name;
}

/** Validates all three parts; the routes call it first, so every repository call gets a checked scope. */
export function makeScope(game: string, stage: Stage, collection: string): Scope {
  if (!isValidGame(game)) throw nosqlErrors.badCollectionName(`${game.slice(0, 200)} (game)`);
  if (!STAGES.includes(stage)) throw new Error(`unknown stage ${stage}`);
  return { game, stage, collection: checkCollectionName(collection) };
}

/** Throws unless the scope passes the patterns above; index DDL calls it before quoting the parts. */
export function assertSafeScope(scope: Scope): void {
  if (!isValidGame(scope.game) || !STAGES.includes(scope.stage) || !COLLECTION.test(scope.collection)) {
    throw new Error('unsafe scope reached index DDL');
  }
}
