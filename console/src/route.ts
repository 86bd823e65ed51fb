// Where the console is: the location's hash (#/games, #/account, #/game/{apiKey}/{page}), so a reload or a
// shared link opens the same page.
import { signal } from '@preact/signals';

export const GAME_PAGES = [
  ['overview', 'Overview'],
  ['events', 'Events'],
  ['running-totals', 'Running totals'],
  ['leaderboards', 'Leaderboards'],
  ['indexed-types', 'Indexed types'],
  ['credentials', 'Credentials'],
  ['push-credentials', 'Push notifications'],
  ['cloud-code', 'Cloud Code'],
  ['configuration', 'Whole configuration'],
  ['snapshots', 'Snapshots'],
  ['team', 'Team'],
  ['audit', 'Audit log'],
  ['data', 'Data Explorer'],
  ['players', 'Players'],
  ['leaderboard-entries', 'Leaderboard entries'],
  ['script-log', 'Script log'],
  ['manage', 'Manage screens'],
  ['harness', 'Test harness'],
] as const;
export type GamePage = (typeof GAME_PAGES)[number][0];

export type Route =
  | { page: 'games' }
  | { page: 'account' }
  | { page: 'game'; apiKey: string; section: GamePage };

export function parse(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'account') return { page: 'account' };
  if (parts[0] === 'game' && parts[1]) {
    const section = GAME_PAGES.find(([p]) => p === parts[2])?.[0] ?? 'overview';
    return { page: 'game', apiKey: parts[1], section };
  }
  return { page: 'games' };
}

export const href = (r: Route): string =>
  r.page === 'game' ? `#/game/${encodeURIComponent(r.apiKey)}/${r.section}` : `#/${r.page}`;

export const route = signal<Route>(parse(location.hash));
addEventListener('hashchange', () => {
  route.value = parse(location.hash);
});

export function go(r: Route): void {
  location.hash = href(r);
}
