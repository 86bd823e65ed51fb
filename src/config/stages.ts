// Configuration by stage, for the runtime: Preview runs the working copy, Live the last published game snapshot.

import { type Db, getConfigVersion, loadCredentialHashes, loadFullConfig } from './config-store.js';
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
  if (stage === 'preview') {
    const version = await getConfigVersion(db, apiKey);
    return { version: `preview:${version}`, config: await loadFullConfig(db, apiKey) };
  }
  // One statement: the pointer and the snapshot it names are read together, so a publish is seen whole or not at all.
  const { rows } = await db.query<{ publish_seq: string; config: FullConfig }>(
    `SELECT l.publish_seq, s.config FROM live_snapshots l
       JOIN admin_snapshots s ON s.id = l.snapshot_id
       JOIN games g ON g.api_key = l.api_key AND g.deleted_at IS NULL
     WHERE l.api_key = $1 AND l.kind = 'game'`,
    [apiKey],
  );
  const row = rows[0];
  if (!row) return null;
  return { version: `live:${row.publish_seq}`, config: { ...row.config, apiKey } };
}

/** Only the version of loadStageConfig, for cheap polling; null when Live runs nothing. */
export async function getStageVersion(db: Db, apiKey: string, stage: StageName): Promise<string | null> {
  if (stage === 'preview') return `preview:${await getConfigVersion(db, apiKey)}`;
  const { rows } = await db.query<{ publish_seq: string; snapshot_id: string | null }>(
    `SELECT l.publish_seq, l.snapshot_id FROM live_snapshots l JOIN games g ON g.api_key = l.api_key
     WHERE l.api_key = $1 AND l.kind = 'game' AND g.deleted_at IS NULL`,
    [apiKey],
  );
  const row = rows[0];
  return row?.snapshot_id ? `live:${row.publish_seq}` : null;
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
  const { rows } = await db.query<{ secrets: { credentialHashes?: Record<string, string> } | null }>(
    `SELECT s.secrets FROM live_snapshots l JOIN admin_snapshots s ON s.id = l.snapshot_id
     WHERE l.api_key = $1 AND l.kind = 'game'`,
    [apiKey],
  );
  return rows[0]?.secrets?.credentialHashes ?? {};
}
