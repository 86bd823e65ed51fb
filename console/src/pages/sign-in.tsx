import { useState } from 'preact/hooks';
import { signIn } from '../session.js';
import { Alert, Field, messageOf, useBusy } from '../ui.js';

export function SignInForm({ username: known }: { username?: string }) {
  const [username, setUsername] = useState(known ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, run] = useBusy();
  const submit = (e: Event) => {
    e.preventDefault();
    setError('');
    void run(() => signIn(username, password)).catch((err) => setError(messageOf(err)));
  };
  return (
    <form onSubmit={submit} aria-label="Sign in">
      <Field label="Username" value={username} onInput={setUsername} autoComplete="username" required />
      <Field
        label="Password"
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete="current-password"
        required
      />
      <Alert text={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
