// The shell: sign-in when there is no session; otherwise the header, the game's navigation and the page.
// The sign-in dialog opens over the page when the token stops working, so the page keeps its state.
import { useEffect, useRef } from 'preact/hooks';
import { useLoad } from './load.js';
import { AccountPage } from './pages/account.js';
import { AuditPage } from './pages/audit.js';
import { CloudCodeLazy } from './pages/cloud-code-lazy.js';
import { CredentialsPage } from './pages/credentials.js';
import { DataExplorerPage } from './pages/data-explorer.js';
import { EventsPage } from './pages/events.js';
import { GamesPage } from './pages/games.js';
import { HarnessPage } from './pages/harness.js';
import { IndexedTypesPage } from './pages/indexed-types.js';
import { LeaderboardEntriesPage } from './pages/leaderboard-entries.js';
import { LeaderboardsPage } from './pages/leaderboards.js';
import { ManagePage } from './pages/manage.js';
import { OverviewPage } from './pages/overview.js';
import { PlayersPage } from './pages/players.js';
import { PushCredentialsPage } from './pages/push-credentials.js';
import { RunningTotalsPage } from './pages/running-totals.js';
import { ScriptLogPage } from './pages/script-log.js';
import { SignInForm } from './pages/sign-in.js';
import { SnapshotsPage } from './pages/snapshots.js';
import { TeamPage } from './pages/team.js';
import { WholeConfigPage } from './pages/whole-config.js';
import { CanContext, canFrom, type Mine, PAGE_KEYS } from './permissions.js';
import { GAME_PAGES, type GamePage, href, route } from './route.js';
import { call, logOut, session, signInAgain } from './session.js';
import { messageOf } from './ui.js';

const PAGES: Record<GamePage, (p: { apiKey: string }) => preact.JSX.Element> = {
  overview: OverviewPage,
  events: EventsPage,
  'running-totals': RunningTotalsPage,
  leaderboards: LeaderboardsPage,
  'indexed-types': IndexedTypesPage,
  credentials: CredentialsPage,
  'push-credentials': PushCredentialsPage,
  'cloud-code': CloudCodeLazy,
  configuration: WholeConfigPage,
  snapshots: SnapshotsPage,
  team: TeamPage,
  audit: AuditPage,
  data: DataExplorerPage,
  players: PlayersPage,
  'leaderboard-entries': LeaderboardEntriesPage,
  'script-log': ScriptLogPage,
  manage: ManagePage,
  harness: HarnessPage,
};

export function App() {
  const s = session.value;
  if (!s) {
    return (
      <main class="sign-in">
        <h1>Playbase console</h1>
        <SignInForm />
      </main>
    );
  }
  const r = route.value;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href({ page: 'games' })}>
          Playbase
        </a>
        <nav aria-label="Account">
          <span class="who">{s.username}</span>
          <a href={href({ page: 'account' })}>Account</a>
          <button type="button" class="secondary" onClick={() => void logOut()}>
            Sign out
          </button>
        </nav>
      </header>
      {r.page === 'game' ? (
        <GameView key={r.apiKey} apiKey={r.apiKey} section={r.section} />
      ) : (
        <div class="layout">
          <main id="main" tabIndex={-1}>
            {r.page === 'games' && <GamesPage />}
            {r.page === 'account' && <AccountPage />}
          </main>
        </div>
      )}
      {signInAgain.value && <SignInDialog username={s.username} />}
    </>
  );
}

/** A game's pages, with what the user may do there; links to pages the user cannot read are left out. */
function GameView({ apiKey, section }: { apiKey: string; section: GamePage }) {
  const mine = useLoad(
    () =>
      call((c) =>
        c.api.GET('/restv2/auth/game/{apiKey}/permissions', { params: { path: { apiKey } } }),
      ) as Promise<Mine>,
    [apiKey],
  );
  const can = canFrom(mine.data);
  const Page = PAGES[section];
  return (
    <CanContext.Provider value={can}>
      <div class="layout">
        <nav class="side" aria-label="Game">
          <ul>
            {GAME_PAGES.filter(([p]) => can(PAGE_KEYS[p] ?? 'game', 1) || p === 'overview').map(
              ([p, title]) => (
                <li key={p}>
                  <a
                    href={href({ page: 'game', apiKey, section: p })}
                    aria-current={section === p ? 'page' : undefined}
                  >
                    {title}
                  </a>
                </li>
              ),
            )}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {mine.error !== undefined && <p class="error">{messageOf(mine.error)}</p>}
          {mine.data && <Page key={section} apiKey={apiKey} />}
        </main>
      </div>
    </CanContext.Provider>
  );
}

function SignInDialog({ username }: { username: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="again-title" onCancel={(e) => e.preventDefault()}>
      <h2 id="again-title">Your session has ended</h2>
      <p>Sign in again to carry on; what you were doing is kept.</p>
      <SignInForm username={username} />
    </dialog>
  );
}
