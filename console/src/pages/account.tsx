// The account: change the password, end every session ("log out everywhere").
import { useState } from 'preact/hooks';
import { call, forget } from '../session.js';
import { Alert, confirmed, ErrorSummary, Field, FormError, messageOf, Section, useBusy } from '../ui.js';

export function AccountPage() {
  const [oldPassword, setOld] = useState('');
  const [password, setNew] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [done, setDone] = useState('');
  const [busy, run] = useBusy();
  const [everywhereError, setEverywhereError] = useState('');

  const change = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    setDone('');
    void run(() => call((c) => c.api.PUT('/restv2/auth/user/password', { body: { oldPassword, password } })))
      .then(() => {
        setOld('');
        setNew('');
        setDone('Password changed. Your other sessions have ended.');
      })
      .catch((err) => setFailure(new FormError(err, ['oldPassword', 'password'])));
  };
  const everywhere = () => {
    if (!confirmed('Log out everywhere? Every session of this account ends, this one included.')) return;
    void call((c) => c.api.DELETE('/restv2/auth/user/sessions'))
      .then(forget)
      .catch((err) => setEverywhereError(messageOf(err)));
  };
  return (
    <>
      <h1>Account</h1>
      <Section title="Change password">
        <form onSubmit={change}>
          <ErrorSummary failure={failure} />
          <Field
            label="Current password"
            type="password"
            value={oldPassword}
            onInput={setOld}
            autoComplete="current-password"
            error={failure?.at('oldPassword')}
          />
          <Field
            label="New password"
            type="password"
            value={password}
            onInput={setNew}
            autoComplete="new-password"
            error={failure?.at('password')}
          />
          <button type="submit" disabled={busy}>
            Change password
          </button>
          <p role="status">{done}</p>
        </form>
      </Section>
      <Section title="Sessions">
        <p>End every session of this account on every device, this one included.</p>
        <button type="button" class="danger" onClick={everywhere}>
          Log out everywhere
        </button>
        <Alert text={everywhereError} />
      </Section>
    </>
  );
}
