// What /readyz of a runtime cluster's nosql process says of its replica (docs/topology.md). Not ready until the
// replica holds a whole state and, since this process started, has caught up with the feed once, or found the
// feed unreachable (the process then serves the state it stored: a feed outage never makes a cluster unready);
// ready from then on.
// The answer carries the figures an operator watches: whether the feed is followed, and the lag.
import type pg from 'pg';
import { errors } from '../errors.js';
import { readReplicaPosition } from '../store/replica.js';

export type FeedState = 'starting' | 'following' | 'unreachable';

export interface ReplicaReport {
  cluster: string;
  /** following: a long poll is open on a feed that answered; unreachable: the last request failed. */
  feed: FeedState;
  /** Caught up with the feed at least once since this process started. */
  caughtUp: boolean;
  /** When the replica last applied a feed answer (an empty answer counts: the feed answers every 25 s at least). */
  appliedAt: string | null;
  /**
   * How old the replica's knowledge may be, in milliseconds: 0 while following (a change is applied as it is
   * committed); otherwise the time since the last applied answer.
   */
  lagMs: number | null;
}

export interface ReplicaStatus {
  /** The applier's report of its loop. */
  following(): void;
  caughtUp(): void;
  unreachable(): void;
  /** The readiness answer's `replica` part; 503 NOT_READY while the replica is not ready to serve. */
  readiness(pool: pg.Pool, now: number): Promise<ReplicaReport>;
}

export function createReplicaStatus(cluster: string): ReplicaStatus {
  let feed: FeedState = 'starting';
  let caughtUp = false;
  // Once ready, ready for good: a catch-up after an outage must not take every process of the cluster out of
  // the load balancer at once.
  let serving = false;
  return {
    following: () => {
      feed = 'following';
    },
    caughtUp: () => {
      feed = 'following';
      caughtUp = true;
      serving = true;
    },
    unreachable: () => {
      feed = 'unreachable';
      serving = true;
    },
    async readiness(pool, now) {
      const position = await readReplicaPosition(pool);
      // `~` in the cursor: a whole-state synchronisation is under way, its games only partly here.
      if (position === undefined || position.cursor.includes('~'))
        throw errors.notReady(`Cluster ${cluster}: the replica's first synchronisation is not complete`);
      if (!serving) throw errors.notReady(`Cluster ${cluster}: the replica is catching up with the feed`);
      const appliedAt = position.appliedAt.getTime();
      return {
        cluster,
        feed,
        caughtUp,
        appliedAt: position.appliedAt.toISOString(),
        lagMs: feed === 'following' ? 0 : Math.max(0, now - appliedAt),
      };
    },
  };
}
