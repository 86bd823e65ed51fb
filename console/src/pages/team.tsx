// Team: collaborators by e-mail with their groups (add, remove); groups and ownership (team-groups.tsx).
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import {
  Alert,
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
import { GroupsPanel, TransferOwnership } from './team-groups.js';

export function TeamPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canManage = useCan()('admin.permissions', 2);
  const team = useLoad(
    () =>
      Promise.all([
        call((c) => c.api.GET('/restv2/auth/game/{apiKey}/collaborators', path)),
        call((c) => c.api.GET('/restv2/auth/game/{apiKey}/groups', path)),
      ]),
    [apiKey],
  );
  const [email, setEmail] = useState('');
  const [query, setQuery] = useState('');
  const [groupNames, setGroupNames] = useState<string[]>([]);
  const [failure, setFailure] = useState<FormError>();
  const [rowError, setRowError] = useState('');
  const [busy, run] = useBusy();
  if (team.error !== undefined) return <p class="error">{messageOf(team.error)}</p>;
  if (!team.data) return <p role="status">Loading…</p>;
  const [collaborators, groups] = team.data;
  const add = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      call((c) =>
        c.api.POST('/restv2/auth/game/{apiKey}/collaborators', { ...path, body: { email, groupNames } }),
      ),
    )
      .then(async () => {
        setEmail('');
        setGroupNames([]);
        await team.reload();
      })
      .catch((err) => setFailure(new FormError(err, ['email', 'groupNames'])));
  };
  const remove = (who: string) => {
    if (!confirmed(`Remove ${who} from the team?`)) return;
    void call((c) =>
      c.api.DELETE('/restv2/auth/game/{apiKey}/collaborators/{email}', {
        params: { path: { apiKey, email: who } },
      }),
    )
      .then(team.reload)
      .catch((e) => setRowError(messageOf(e)));
  };
  return (
    <>
      <h1>Team</h1>
      <Section title="Collaborators">
        <Alert text={rowError} />
        <Search label="Search collaborators" value={query} onInput={setQuery} />
        <table>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Groups</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {collaborators
              .filter((c) => matches(query, c.email, ...c.groupNames))
              .map((c) => (
                <tr key={c.email}>
                  <td>{c.email}</td>
                  <td>{c.groupNames.join(', ')}</td>
                  <td class="actions">
                    {canManage && (
                      <button type="button" class="danger" onClick={() => remove(c.email)}>
                        Remove <span class="sr-only">{c.email}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
        {canManage && (
          <form onSubmit={add} aria-label="Add collaborator" class="editor">
            <h3>Add collaborator</h3>
            <ErrorSummary failure={failure} />
            <Field
              label="E-mail"
              type="email"
              value={email}
              onInput={setEmail}
              error={failure?.at('email')}
            />
            <fieldset>
              <legend>Groups</legend>
              {groups.map((g) => (
                <label key={g.name} class="check">
                  <input
                    type="checkbox"
                    checked={groupNames.includes(g.name)}
                    onChange={(e) =>
                      setGroupNames(
                        (e.target as HTMLInputElement).checked
                          ? [...groupNames, g.name]
                          : groupNames.filter((n) => n !== g.name),
                      )
                    }
                  />{' '}
                  {g.name}
                </label>
              ))}
            </fieldset>
            <button type="submit" disabled={busy}>
              Add collaborator
            </button>
          </form>
        )}
      </Section>
      <GroupsPanel
        apiKey={apiKey}
        groups={groups}
        canManage={canManage}
        onChange={() => void team.reload()}
      />
      <TransferOwnership
        apiKey={apiKey}
        emails={collaborators.map((c) => c.email)}
        onDone={() => location.reload()}
      />
    </>
  );
}
