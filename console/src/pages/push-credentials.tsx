// Push credentials: what is configured (identifiers only: the server never returns a key), and a form that
// replaces them (APNs token key, FCM service account), or removes them. The API keeps both providers as one
// document, so a save replaces both: a provider left empty is removed (the page says so before saving).
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import { confirmed, ErrorSummary, Field, FormError, messageOf, Section, useBusy } from '../ui.js';

function TextArea(p: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  error?: string;
}) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <textarea
        id={p.id}
        rows={5}
        value={p.value}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={p.error ? `${p.id}-error` : undefined}
        onInput={(e) => p.onInput(e.currentTarget.value)}
      />
      {p.error && (
        <span id={`${p.id}-error`} class="field-error" role="alert">
          {p.error}
        </span>
      )}
    </div>
  );
}

const APPLE = ['keyId', 'teamId', 'topic', 'keyPem'] as const;

export function PushCredentialsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.pushCredentials', 2);
  const current = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~pushCredentials', path)),
    [apiKey],
  );
  const [apple, setApple] = useState({ keyId: '', teamId: '', topic: '', keyPem: '' });
  const [google, setGoogle] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [status, setStatus] = useState('');
  const [busy, run] = useBusy();
  const hasApple = APPLE.some((k) => apple[k]);
  const put = (body: { apple?: unknown; google?: unknown }, done: string) => {
    setFailure(undefined);
    setStatus('');
    void run(() => call((c) => c.api.PUT('/restv2/game/{apiKey}/config/~pushCredentials', { ...path, body })))
      .then(async () => {
        setApple({ keyId: '', teamId: '', topic: '', keyPem: '' });
        setGoogle('');
        setStatus(done);
        await current.reload();
      })
      .catch((err) =>
        setFailure(
          new FormError(err, [...APPLE.map((k) => `apple.${k}`), 'google', 'apple', 'google.serviceAccount']),
        ),
      );
  };
  const save = (e: Event) => {
    e.preventDefault();
    const dropped = [
      current.data?.apple && !hasApple ? 'Apple' : '',
      current.data?.google && !google ? 'Google' : '',
    ].filter(Boolean);
    if (dropped.length && !confirmed(`Saving removes the ${dropped.join(' and ')} credentials. Go on?`))
      return;
    put(
      { ...(hasApple ? { apple } : {}), ...(google ? { google: { serviceAccount: google } } : {}) },
      'Push credentials saved.',
    );
  };
  const c = current.data;
  const at = (field: string) => failure?.at(field);
  return (
    <>
      <h1>Push credentials</h1>
      <Section title="Configured">
        {current.error !== undefined && <p class="error">{messageOf(current.error)}</p>}
        <dl>
          <dt>Apple (APNs)</dt>
          <dd>
            {c?.apple ? `key ${c.apple.keyId}, team ${c.apple.teamId}, topic ${c.apple.topic}` : 'none'}
          </dd>
          <dt>Google (FCM)</dt>
          <dd>{c?.google ? `project ${c.google.projectId}, ${c.google.clientEmail}` : 'none'}</dd>
        </dl>
        <p class="hint">Keys are stored sealed and never shown again.</p>
        {canWrite && (c?.apple || c?.google) && (
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() =>
              confirmed('Remove every push credential of this game?') && put({}, 'Push credentials removed.')
            }
          >
            Remove push credentials
          </button>
        )}
        <p role="status">{status}</p>
      </Section>
      {canWrite && (
        <Section title="Replace push credentials">
          <form onSubmit={save}>
            <ErrorSummary failure={failure} />
            <fieldset>
              <legend>Apple (APNs token key)</legend>
              <Field
                label="Key ID"
                value={apple.keyId}
                onInput={(v) => setApple({ ...apple, keyId: v })}
                error={at('apple.keyId')}
              />
              <Field
                label="Team ID"
                value={apple.teamId}
                onInput={(v) => setApple({ ...apple, teamId: v })}
                error={at('apple.teamId')}
              />
              <Field
                label="Topic (bundle id)"
                value={apple.topic}
                onInput={(v) => setApple({ ...apple, topic: v })}
                error={at('apple.topic')}
              />
              <TextArea
                id="apple-key"
                label="Key (.p8 PEM)"
                value={apple.keyPem}
                onInput={(v) => setApple({ ...apple, keyPem: v })}
                error={at('apple.keyPem') ?? at('apple')}
              />
            </fieldset>
            <fieldset>
              <legend>Google (FCM)</legend>
              <TextArea
                id="google-account"
                label="Service account (JSON)"
                value={google}
                onInput={setGoogle}
                error={at('google.serviceAccount') ?? at('google')}
              />
            </fieldset>
            <button type="submit" disabled={busy || (!hasApple && !google)}>
              Save push credentials
            </button>
          </form>
        </Section>
      )}
    </>
  );
}
