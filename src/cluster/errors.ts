// Errors of the cluster feed between a control server and its runtime clusters; they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const clusterErrors = {
  secretInvalid: def(
    'CLUSTER_SECRET_INVALID',
    401,
    "The cluster feed takes only `Authorization: Bearer <PLAYBASE_CLUSTER_SECRET>`, the secret shared by the control server and its clusters' nosql servers (never an account's credential).",
    () => 'The cluster feed needs the cluster secret (Authorization: Bearer <PLAYBASE_CLUSTER_SECRET>)',
  ),
  feedOff: def(
    'CLUSTER_FEED_OFF',
    404,
    'This server serves no cluster feed: PLAYBASE_CLUSTER_SECRET is not set (docs/topology.md).',
    () => 'No cluster feed here: PLAYBASE_CLUSTER_SECRET is not set',
  ),
  unknownCluster: def(
    'CLUSTER_FEED_UNKNOWN_CLUSTER',
    404,
    'The feed was asked for a cluster that neither PLAYBASE_CLUSTERS nor `local` names.',
    (name: string) => `No cluster named ${name}`,
  ),
  notAReplica: def(
    'CLUSTER_NOT_A_REPLICA',
    404,
    "This nosql server is not a runtime cluster's (PLAYBASE_CLUSTER and PLAYBASE_CLUSTER_SECRET are not both set): its documents are in the control database (docs/topology.md).",
    () => 'Not a runtime cluster: PLAYBASE_CLUSTER and PLAYBASE_CLUSTER_SECRET are not both set',
  ),
  notThisCluster: def(
    'CLUSTER_NOT_THIS_ONE',
    404,
    "An internal request named a runtime cluster this nosql server does not serve (check the cluster's internalUrl in PLAYBASE_CLUSTERS).",
    (asked: string, here: string) => `This server serves cluster ${here}, not ${asked}`,
  ),
  badCursor: def(
    'CLUSTER_BAD_CURSOR',
    400,
    "The feed's `after` is a cursor it answered before (or 0), and `wait` a number of milliseconds from 0 to 25000.",
    (why: string) => why,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const clusterCatalogue = entriesOf(clusterErrors);
