// Errors of game administration: snapshots and publishing, admin screens, the audit log.
import { def, entriesOf } from '../errors.js';

export const adminErrors = {
  snapshotNotFound: def(
    'SNAPSHOT_NOT_FOUND',
    404,
    'No snapshot of this game has this id.',
    (id: string) => `Snapshot ${id} not found`,
  ),
  snapshotIsLive: def(
    'SNAPSHOT_IS_LIVE',
    409,
    'The snapshot is the one the Live stage runs; unpublish it (or publish another) before deleting it.',
    (id: string) => `Snapshot ${id} is live; unpublish it first`,
  ),
  snapshotNotPublished: def(
    'SNAPSHOT_NOT_PUBLISHED',
    409,
    'Unpublish applies only to a published snapshot.',
    (id: string) => `Snapshot ${id} is not published`,
  ),
  gameNotPublished: def(
    'GAME_NOT_PUBLISHED',
    409,
    'A screen snapshot can go Live only after a game snapshot has been published.',
    (apiKey: string) => `Game ${apiKey} has no published game snapshot yet`,
  ),
  copyNothing: def(
    'SNAPSHOT_COPY_EMPTY',
    400,
    'A snapshot copy must include the configuration, the meta collections or both.',
    () => 'Nothing to copy: includeConfig and includeMeta are both false',
  ),
  copyToSelf: def(
    'SNAPSHOT_COPY_TO_SELF',
    400,
    'copy/to/{apiKey} needs another game; to restore a snapshot into the same game, revert to it.',
    () => 'The target game is the snapshot’s own game; use revert instead',
  ),
  manageItemNotFound: def(
    'MANAGE_ITEM_NOT_FOUND',
    404,
    'No admin screen, snippet or query of this game has this short code.',
    (kind: string, shortCode: string) => `No ${kind} with short code ${shortCode}`,
  ),
  manageItemExists: def(
    'MANAGE_ITEM_EXISTS',
    409,
    'An admin screen, snippet or query with this short code already exists in the game.',
    (kind: string, shortCode: string) => `A ${kind} with short code ${shortCode} already exists`,
  ),
  manageShortCodeMismatch: def(
    'MANAGE_SHORT_CODE_MISMATCH',
    400,
    'The shortCode in the body of an update differs from the one in the path.',
    (path: string, body: string) => `shortCode ${body} in the body differs from ${path} in the path`,
  ),
  manageQueryInvalid: def(
    'MANAGE_QUERY_INVALID',
    400,
    'An admin query holds a filter, projection or sort that the data server would refuse.',
    (why: string) => `Invalid admin query: ${why}`,
  ),
  clusterUnreachable: def(
    'CLUSTER_UNREACHABLE',
    503,
    "The game lives on a runtime cluster (docs/topology.md) whose nosql servers did not answer at the cluster's internalUrl: its Preview meta collections, which a snapshot holds, cannot be read. Nothing was written; try again once the cluster answers.",
    (cluster: string, why: string) =>
      `Cluster ${cluster} did not answer for the Preview meta collections: ${why}`,
  ),
  auditRangeInvalid: def(
    'AUDIT_RANGE_INVALID',
    400,
    'since and until must be ISO 8601 dates or epoch milliseconds, with since not after until.',
    (why: string) => `Invalid audit range: ${why}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const adminCatalogue = entriesOf(adminErrors);
