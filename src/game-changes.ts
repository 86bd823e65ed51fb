// Games whose stored configuration, credentials or access changed under this process's feet: a cluster's applier
// (src/cluster/applier.ts) writes the replica, then tells the caches that key on a game to forget it, so that a
// change is served at once rather than when the cache's own check comes round.

/** `'*'`: every game (a full resynchronisation). */
export type ChangedGames = readonly string[] | '*';

export interface GameChanges {
  /** Calls `listener` after each applied change; returns the unsubscribe. */
  subscribe(listener: (games: ChangedGames) => void): () => void;
  publish(games: ChangedGames): void;
}

export function createGameChanges(): GameChanges {
  const listeners = new Set<(games: ChangedGames) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(games) {
      for (const listener of listeners) listener(games);
    },
  };
}
