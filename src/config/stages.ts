// Configuration by stage, for the runtime: Preview runs the working copy, Live the last published game snapshot.

import { authErrors } from '../auth/errors.js';
import { readLivePublishSeq, readLiveSecrets } from '../store/snapshots.js';
import { readStageDocument } from '../store/stage-config.js';
import { canonicalDoc } from './config-build.js';
import { type Db, fullConfigOf, getConfigVersion, loadCredentialHashes } from './config-store.js';
import type { FullConfig } from './config-types.js';

export type StageName = 'live' | 'preview';

export interface StageConfig {
  /** Changes whenever the stage's configuration may have changed; compare for equality only. */
  version: string;
  config: FullConfig;
}

/**
 * The configuration a stage runs, or null for Live before the first publish (Live then runs nothing).
 * Preview reads the version before the document: a writer landing in between makes the version older than the
 * document, so a cache keyed by it reloads once more, never keeps a stale document under a new version.
 */
export async function loadStageConfig(db: Db, apiKey: string, stage: StageName): Promise<StageConfig | null> {
  const staged = await readStageDocument(db, { game: apiKey, stage });
  if (staged === undefined) throw authErrors.gameNotFound(apiKey);
  if (staged === null) return null;
  // Live runs the published configuration as it was captured (canonical then, credentials included).
  if (stage === 'live') return { version: staged.version, config: { ...(staged.doc as FullConfig), apiKey } };
  return { version: staged.version, config: await fullConfigOf(db, apiKey, canonicalDoc(staged.doc)) };
}

/** Only the version of loadStageConfig, for cheap polling; null when Live runs nothing. */
export async function getStageVersion(db: Db, apiKey: string, stage: StageName): Promise<string | null> {
  if (stage === 'preview') return `preview:${await getConfigVersion(db, apiKey)}`;
  const seq = await readLivePublishSeq(db, apiKey);
  return seq === undefined ? null : `live:${seq}`;
}

/**
 * The server credentials' secret hashes a stage accepts, by name: Preview the working copy's, Live those kept with
 * the published snapshot (a credential added since is not Live until published). Empty when Live runs nothing.
 */
export async function loadStageCredentialHashes(
  db: Db,
  apiKey: string,
  stage: StageName,
): Promise<Record<string, string>> {
  if (stage === 'preview') return loadCredentialHashes(db, apiKey);
  const secrets = (await readLiveSecrets(db, apiKey)) as
    | { credentialHashes?: Record<string, string> }
    | undefined;
  return secrets?.credentialHashes ?? {};
}
