// What the signed-in user may do in a game (GET /restv2/auth/game/{apiKey}/permissions): the console hides or
// disables what the API would refuse; the API still refuses it.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Mine {
  owner: boolean;
  permissions: Record<string, number>;
}

/** The level of `key`: its own entry, else its nearest ancestor's, else 0 (as the server reads it). */
export function levelOf(permissions: Record<string, number>, key: string): number {
  let k = key;
  for (;;) {
    const level = permissions[k];
    if (level !== undefined) return level;
    const dot = k.lastIndexOf('.');
    if (dot < 0) return 0;
    k = k.slice(0, dot);
  }
}

export type Can = (key: string, level: 1 | 2) => boolean;

export const canFrom =
  (mine: Mine | undefined): Can =>
  (key, level) =>
    !!mine && (mine.owner || levelOf(mine.permissions, key) >= level);

export const CanContext = createContext<Can>(() => false);
export const useCan = (): Can => useContext(CanContext);

/** The key each game page reads with. */
export const PAGE_KEYS: Record<string, string> = {
  overview: 'game',
  events: 'configurator.events',
  'running-totals': 'configurator.runningTotals',
  leaderboards: 'configurator.leaderboards',
  'indexed-types': 'configurator.indexedTypes',
  credentials: 'configurator.credentials',
  'push-credentials': 'configurator.pushCredentials',
  'cloud-code': 'configurator.cloudCode',
  configuration: 'configurator.config',
  snapshots: 'admin.snapshots',
  team: 'admin.permissions',
  audit: 'admin.audit',
  data: 'nosql',
  players: 'nosql.players',
  'leaderboard-entries': 'nosql.leaderboards',
  'script-log': 'nosql',
  manage: 'manage.screens',
  harness: 'configurator.credentials',
};
