// What the data servers read of a stage's configuration: its entities (running totals, leaderboards, indexed
// types, events), straight from the store (src/store/stage-config.ts), so this room imports no configuration code.
// Stored documents are written canonical by the configuration room; a collection an older row lacks reads empty.
import { authErrors } from '../auth/errors.js';
import { readStageDocument } from '../store/stage-config.js';
import type { ConfigDoc } from '../types/config.js';
import type { Db, GameScope } from './scope.js';

export interface StageEntities {
  /** As src/config/stages.ts names it: `preview:<n>` or `live:<n>`. */
  version: string;
  config: ConfigDoc;
}

/** The stage's entities; null when Live runs nothing; 404 when the game does not exist or is in the recycle bin (Preview). */
export async function loadStageEntities(db: Db, scope: GameScope): Promise<StageEntities | null> {
  const staged = await readStageDocument(db, scope);
  if (staged === undefined) throw authErrors.gameNotFound(scope.game);
  if (staged === null) return null;
  const doc = staged.doc ?? {};
  return {
    version: staged.version,
    config: {
      '~events': doc['~events'] ?? [],
      '~runningTotals': doc['~runningTotals'] ?? [],
      '~leaderboards': doc['~leaderboards'] ?? [],
      '~indexedTypes': doc['~indexedTypes'] ?? [],
    },
  };
}
