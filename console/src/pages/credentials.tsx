// Server credentials of the Requests API: create, reset the secret (shown once, with a copy button), delete.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import {
  Alert,
  CopyButton,
  confirmed,
  ErrorSummary,
  Field,
  FormError,
  matches,
  messageOf,
  Search,
  Section,
  useBusy,
} from '../ui.js';

export function CredentialsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.credentials', 2);
  const list = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~credentials', path)),
    [apiKey],
  );
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const [rowError, setRowError] = useState('');
  const [query, setQuery] = useState('');
  const [busy, run] = useBusy();
  const create = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      call((c) => c.api.POST('/restv2/game/{apiKey}/config/~credentials', { ...path, body: { name } })),
    )
      .then(async (made) => {
        if (made) setSecret({ name: made.name, secret: made.secret });
        setName('');
        await list.reload();
      })
      .catch((err) => setFailure(new FormError(err, ['name'])));
  };
  const named = (credential: string) => ({ params: { path: { apiKey, name: credential } } });
  const reset = (credential: string) => {
    if (!confirmed(`Give ${credential} a new secret? The old one stops working at once.`)) return;
    setRowError('');
    void call((c) =>
      c.api.POST('/restv2/game/{apiKey}/config/~credentials/{name}/resetSecret', named(credential)),
    )
      .then((answer) => setSecret({ name: credential, secret: answer.secret }))
      .catch((err) => setRowError(messageOf(err)));
  };
  const remove = (credential: string) => {
    if (!confirmed(`Delete the credential ${credential}?`)) return;
    setRowError('');
    void call((c) => c.api.DELETE('/restv2/game/{apiKey}/config/~credentials/{name}', named(credential)))
      .then(list.reload)
      .catch((err) => setRowError(messageOf(err)));
  };
  return (
    <>
      <h1>Credentials</h1>
      {secret && (
        <Section title="New secret">
          <p role="status">
            The secret of <strong>{secret.name}</strong> is shown this once: copy it now.
          </p>
          <p>
            <code>{secret.secret}</code>{' '}
            <CopyButton text={secret.secret} label={`secret of ${secret.name}`} />
          </p>
          <button type="button" class="secondary" onClick={() => setSecret(undefined)}>
            I have copied it
          </button>
        </Section>
      )}
      {canWrite && (
        <Section title="New credential">
          <form onSubmit={create} class="inline-form">
            <ErrorSummary failure={failure} />
            <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
            <button type="submit" disabled={busy}>
              Create
            </button>
          </form>
        </Section>
      )}
      <Section title="Server credentials">
        <Search label="Search credentials" value={query} onInput={setQuery} />
        <Alert text={rowError} />
        {list.error !== undefined && <p class="error">{messageOf(list.error)}</p>}
        {list.data?.length === 0 && <p>None yet.</p>}
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data ?? [])
              .filter((c) => matches(query, c.name))
              .map((c) => (
                <tr key={c.name}>
                  <td>
                    <code>{c.name}</code>
                  </td>
                  <td class="actions">
                    {canWrite && (
                      <>
                        <button type="button" class="secondary" onClick={() => reset(c.name)}>
                          Reset secret <span class="sr-only">of {c.name}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => remove(c.name)}>
                          Delete <span class="sr-only">{c.name}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}
