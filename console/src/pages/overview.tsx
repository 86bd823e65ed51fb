// A game's overview: its name (rename), its API key and stage URLs with copy buttons, the recycle bin.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { go } from '../route.js';
import { call, withClient } from '../session.js';
import {
  Alert,
  CopyButton,
  confirmed,
  ErrorSummary,
  Field,
  FormError,
  messageOf,
  Section,
  useBusy,
} from '../ui.js';

export function OverviewPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('game', 2);
  const game = useLoad(() => call((c) => c.api.GET('/restv2/game/{apiKey}', path)), [apiKey]);
  const stages = useLoad(() => withClient((c) => c.endpoints(apiKey)), [apiKey]);
  const [deleteError, setDeleteError] = useState('');
  const remove = () => {
    if (!confirmed(`Move "${game.data?.name}" to the recycle bin? Its owner can restore it for 10 days.`))
      return;
    void call((c) => c.api.DELETE('/restv2/game/{apiKey}', path))
      .then(() => go({ page: 'games' }))
      .catch((e) => setDeleteError(messageOf(e)));
  };
  if (game.error !== undefined) return <p class="error">{messageOf(game.error)}</p>;
  if (!game.data) return <p role="status">Loading…</p>;
  const g = game.data;
  const urls: [string, string | null | undefined][] = [
    ['Live stage URL', stages.data?.liveNosql],
    ['Preview stage URL', stages.data?.previewNosql],
  ];
  return (
    <>
      <h1>{g.name}</h1>
      <Section title="Keys and stage URLs">
        <dl class="keys">
          <dt>API key</dt>
          <dd>
            <code>{g.apiKey}</code> <CopyButton text={g.apiKey} label="API key" />
          </dd>
          {urls.map(([label, url]) => (
            <>
              <dt>{label}</dt>
              <dd>
                {url ? (
                  <>
                    <code>{url}</code> <CopyButton text={url} label={label} />
                  </>
                ) : (
                  <span>{stages.error ? messageOf(stages.error) : 'not served'}</span>
                )}
              </dd>
            </>
          ))}
          <dt>Owner</dt>
          <dd>{g.owner}</dd>
          <dt>Created</dt>
          <dd>{g.created.slice(0, 16).replace('T', ' ')}</dd>
        </dl>
      </Section>
      {canWrite && <Rename apiKey={apiKey} name={g.name} onRenamed={game.reload} />}
      {canWrite && (
        <Section title="Recycle bin">
          <button type="button" class="danger" onClick={remove}>
            Move to recycle bin
          </button>
          <Alert text={deleteError} />
        </Section>
      )}
    </>
  );
}

function Rename(p: { apiKey: string; name: string; onRenamed: () => Promise<void> }) {
  const [name, setName] = useState(p.name);
  const [failure, setFailure] = useState<FormError>();
  const [done, setDone] = useState('');
  const [busy, run] = useBusy();
  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    setDone('');
    void run(() =>
      call((c) =>
        c.api.PATCH('/restv2/game/{apiKey}', { params: { path: { apiKey: p.apiKey } }, body: { name } }),
      ),
    )
      .then(async () => {
        setDone('Renamed.');
        await p.onRenamed();
      })
      .catch((err) => setFailure(new FormError(err, ['name'])));
  };
  return (
    <Section title="Rename">
      <form onSubmit={submit} class="inline-form">
        <ErrorSummary failure={failure} />
        <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
        <button type="submit" disabled={busy}>
          Rename
        </button>
        <span role="status">{done}</span>
      </form>
    </Section>
  );
}
