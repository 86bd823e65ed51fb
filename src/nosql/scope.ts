// The tenant scope of every repository call (game, stage, collection) and the strict name rules it obeys.
import { COLLECTION_NAME, isValidGame, type Scope, STAGES, type Stage } from '../store/scope.js';
import { nosqlErrors } from './errors.js';

export {
  assertSafeScope,
  type Db,
  type GameScope,
  isValidGame,
  type Scope,
  STAGES,
  type Stage,
} from '../store/scope.js';

export function checkCollectionName(name: string): string {
  if (!COLLECTION_NAME.test(name) || name.includes('..') || name.endsWith('.')) {
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
