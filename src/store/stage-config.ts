// The configuration document a stage runs, as stored: Preview the working copy (games + game_configs), Live the
// game snapshot it was last published at (live_snapshots + admin_snapshots). The configuration room
// (src/config/stages.ts) makes it canonical and adds the credentials; the data servers read its entities.
import type { ConfigDoc } from '../types/config.js';
import { readGameConfig, type StoredConfigDoc } from './game-configs.js';
import { selectConfigVersion } from './games.js';
import type { Db, GameScope } from './scope.js';
import { readLiveConfig } from './snapshots.js';

export interface StageDocument {
  /** `preview:<config_version>` or `live:<publish_seq>`: changes whenever the document may have; compare only. */
  version: string;
  /** As stored: Live's is the whole published configuration (apiKey and credentials included). */
  doc: StoredConfigDoc | null;
}

/**
 * The stage's document; null when Live runs nothing (no published snapshot, or the game is gone); undefined when
 * the game does not exist or is in the recycle bin (Preview). Preview reads the version before the document: a
 * writer landing in between makes the version older than the document, so a cache keyed by it reloads once more,
 * never keeps a stale document under a new version.
 */
export async function readStageDocument(db: Db, scope: GameScope): Promise<StageDocument | null | undefined> {
  if (scope.stage === 'preview') {
    const version = await selectConfigVersion(db, scope.game);
    if (version === undefined) return undefined;
    const row = await readGameConfig(db, scope.game);
    return row && { version: `preview:${version}`, doc: row.doc };
  }
  const live = await readLiveConfig(db, scope.game);
  return live ? { version: `live:${live.publishSeq}`, doc: live.config as Partial<ConfigDoc> } : null;
}
