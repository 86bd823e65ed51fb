// The game picker: the caller's games, "New game", and the recycle bin with Restore.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { go, href } from '../route.js';
import { call } from '../session.js';
import {
  Alert,
  ErrorSummary,
  Field,
  FormError,
  matches,
  messageOf,
  Search,
  Section,
  useBusy,
} from '../ui.js';

export function GamesPage() {
  const games = useLoad(() => call((c) => c.api.GET('/restv2/games')));
  const bin = useLoad(() => call((c) => c.api.GET('/restv2/games/deleted')));
  const [creating, setCreating] = useState(false);
  const [query, setQuery] = useState('');
  const [binError, setBinError] = useState('');
  const restore = (apiKey: string) =>
    call((c) => c.api.POST('/restv2/game/{apiKey}/restore', { params: { path: { apiKey } } }))
      .then(() => Promise.all([games.reload(), bin.reload()]))
      .catch((e) => setBinError(messageOf(e)));
  const shown = (games.data ?? []).filter((g) => matches(query, g.name, g.apiKey));
  return (
    <>
      <h1>Games</h1>
      <Section
        title="Your games"
        actions={
          <button type="button" onClick={() => setCreating(true)} disabled={creating}>
            New game
          </button>
        }
      >
        {creating && <NewGame onDone={() => setCreating(false)} />}
        <Search label="Search games" value={query} onInput={setQuery} />
        {games.error !== undefined && <p class="error">{messageOf(games.error)}</p>}
        {games.loading && !games.data && <p role="status">Loading…</p>}
        {games.data?.length === 0 && <p>No games yet: create one with "New game".</p>}
        <ul class="cards">
          {shown.map((g) => (
            <li key={g.apiKey}>
              <a href={href({ page: 'game', apiKey: g.apiKey, section: 'overview' })}>{g.name}</a>
              <small>
                {g.apiKey} · owner {g.owner}
              </small>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Recycle bin">
        <p>Deleted games stay here for 10 days; only their owner can restore them.</p>
        <Alert text={binError} />
        {bin.data?.length === 0 && <p>The recycle bin is empty.</p>}
        <ul class="cards">
          {(bin.data ?? []).map((g) => (
            <li key={g.apiKey}>
              <span>{g.name}</span>
              <small>deleted {g.deleted?.slice(0, 16).replace('T', ' ')}</small>
              <button type="button" class="secondary" onClick={() => void restore(g.apiKey)}>
                Restore <span class="sr-only">{g.name}</span>
              </button>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

function NewGame({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() => call((c) => c.api.POST('/restv2/games', { body: { name } })))
      .then((game) => {
        onDone();
        if (game) go({ page: 'game', apiKey: game.apiKey, section: 'overview' });
      })
      .catch((err) => setFailure(new FormError(err, ['name'])));
  };
  return (
    <form onSubmit={submit} aria-label="New game" class="inline-form">
      <ErrorSummary failure={failure} />
      <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
      <button type="submit" disabled={busy}>
        Create
      </button>
      <button type="button" class="secondary" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}
