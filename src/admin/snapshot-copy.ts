// Copying a snapshot into a new game or over an existing one, with the parts the include flags name.
import type pg from 'pg';
import { createDefaultGroups } from '../auth/collaborators.js';
import { withScriptDigests } from '../config/config-audit.js';
import { newApiKey } from '../config/games.js';
import { copyCollaborators as copyCollaboratorRows, copyGroups } from '../store/collaborators.js';
import { insertGame, selectNameAndCluster } from '../store/games.js';
import { adminErrors } from './errors.js';
import type { WriteMeta } from './manage.js';
import {
  actionArea,
  auditSnapshot,
  type ContentAdapter,
  contentOf,
  lockGameRow,
  readSnapshot,
  type SnapshotKind,
  type SnapshotSummary,
  saveSnapshot,
  withAfterCommit,
} from './snapshots.js';

export interface CopyInclude {
  /** The configuration (or, for a screen snapshot, the Manage section). */
  config: boolean;
  /** The meta collections (game snapshots only). */
  meta: boolean;
  /** The source game's groups and collaborators as they are now: a snapshot never holds them. */
  collaborators: boolean;
}

export interface CopyResult {
  targetGameApiKey: string;
  /** The target's working copy saved before it was overwritten ("AUTOSAVE - Pre Copy"); absent for a new game. */
  autosave?: SnapshotSummary;
}

function checkInclude(include: CopyInclude): void {
  if (!include.config && !include.meta && !include.collaborators) throw adminErrors.copyNothing();
}

/** Creates a game owned by the caller, in the source game's cluster, and fills it from the snapshot. */
export async function copySnapshotToNewGame(
  pool: pg.Pool,
  adapter: ContentAdapter,
  source: { apiKey: string; kind: SnapshotKind; id: string },
  target: { owner: string; name?: string | undefined },
  include: CopyInclude,
  meta: WriteMeta,
): Promise<CopyResult> {
  checkInclude(include);
  return withAfterCommit(pool, async (client, after) => {
    const snapshot = await readSnapshot(client, source.apiKey, source.kind, source.id);
    const game = (await selectNameAndCluster(client, source.apiKey)) ?? { name: 'Game', cluster: 'local' };
    const apiKey = newApiKey();
    await insertGame(client, apiKey, {
      name: target.name ?? `${game.name} (copy)`,
      cluster: game.cluster,
      owner: target.owner,
      createdAt: new Date(meta.at),
    });
    await createDefaultGroups(client, apiKey);
    after(await adapter.restore(client, apiKey, contentOf(snapshot), include, meta.at));
    if (include.collaborators) await copyCollaborators(client, source.apiKey, apiKey);
    await auditCopy(client, source, apiKey, include, meta, snapshot.config);
    return { targetGameApiKey: apiKey };
  });
}

/** Overwrites the target game's parts named by `include`, after saving its working copy as "AUTOSAVE - Pre Copy". */
export async function copySnapshotToGame(
  pool: pg.Pool,
  adapter: ContentAdapter,
  source: { apiKey: string; kind: SnapshotKind; id: string },
  targetApiKey: string,
  include: CopyInclude,
  meta: WriteMeta,
): Promise<CopyResult> {
  checkInclude(include);
  if (targetApiKey === source.apiKey) throw adminErrors.copyToSelf();
  return withAfterCommit(pool, async (client, after) => {
    const snapshot = await readSnapshot(client, source.apiKey, source.kind, source.id);
    await lockGameRow(client, targetApiKey);
    const autosave = await saveSnapshot(
      client,
      adapter,
      targetApiKey,
      source.kind,
      'AUTOSAVE - Pre Copy',
      meta,
    );
    after(await adapter.restore(client, targetApiKey, contentOf(snapshot), include, meta.at));
    if (include.collaborators) await copyCollaborators(client, source.apiKey, targetApiKey);
    await auditCopy(client, source, targetApiKey, include, meta, snapshot.config);
    return { targetGameApiKey: targetApiKey, autosave };
  });
}

async function auditCopy(
  client: pg.PoolClient,
  source: { apiKey: string; kind: SnapshotKind; id: string },
  targetApiKey: string,
  include: CopyInclude,
  meta: WriteMeta,
  config: unknown,
): Promise<void> {
  const area = actionArea(source.kind);
  await auditSnapshot(client, source.apiKey, `${area}.copy`, source.id, meta, undefined, {
    targetGameApiKey: targetApiKey,
    include,
  });
  await auditSnapshot(
    client,
    targetApiKey,
    `${area}.copyIn`,
    `${source.apiKey}/${source.id}`,
    meta,
    undefined,
    {
      include,
      config: include.config ? withScriptDigests(config) : undefined,
    },
  );
}

/**
 * Groups (same names take the source's levels) and collaborators of the source game, as they are now; the target's
 * owner never becomes a collaborator, and the source's owner joins as an Administrator.
 */
async function copyCollaborators(client: pg.PoolClient, from: string, to: string): Promise<void> {
  await copyGroups(client, to, from);
  await copyCollaboratorRows(client, to, from);
}
