// Team, continued: the game's groups as a tree of permission keys (GET /restv2/auth/permissions) where each key
// has a level of its own or takes its parent's (create, edit, delete a group), and the transfer of ownership
// (the owner only). Without admin.permissions 2 the groups are shown read-only; the API refuses it anyway.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { levelOf } from '../permissions.js';
import { call } from '../session.js';
import {
  Alert,
  confirmed,
  ErrorSummary,
  Field,
  FormError,
  messageOf,
  Section,
  Select,
  useBusy,
} from '../ui.js';

interface Group {
  name: string;
  permissions: Record<string, number>;
}
const LEVELS = ['none', 'read', 'read and write'];

export function GroupsPanel(p: {
  apiKey: string;
  groups: Group[];
  canManage: boolean;
  onChange: () => void;
}) {
  const catalogue = useLoad(() => call((c) => c.api.GET('/restv2/auth/permissions')), []);
  const [editing, setEditing] = useState<Group | 'new'>();
  const [error, setError] = useState('');
  const keys = (catalogue.data?.permissions ?? []).map((k) => k.key).sort();
  const remove = (name: string) => {
    if (!confirmed(`Delete the group ${name}? Its members lose what it gave them.`)) return;
    setError('');
    void call((c) =>
      c.api.DELETE('/restv2/auth/game/{apiKey}/groups/{name}', {
        params: { path: { apiKey: p.apiKey, name } },
      }),
    )
      .then(p.onChange)
      .catch((e) => setError(messageOf(e)));
  };
  return (
    <Section
      title="Groups"
      actions={
        p.canManage ? (
          <button type="button" onClick={() => setEditing('new')}>
            New group
          </button>
        ) : (
          <span>Read only</span>
        )
      }
    >
      <Alert text={error} />
      {editing && (
        <GroupForm
          key={editing === 'new' ? '' : editing.name}
          apiKey={p.apiKey}
          group={editing === 'new' ? undefined : editing}
          keys={keys}
          descriptions={Object.fromEntries(
            (catalogue.data?.permissions ?? []).map((k) => [k.key, k.description]),
          )}
          onDone={() => {
            setEditing(undefined);
            p.onChange();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">
              Permissions (1 read, 2 read and write; a key without its own level takes its parent's)
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {p.groups.map((g) => (
            <tr key={g.name}>
              <td>{g.name}</td>
              <td>
                {Object.entries(g.permissions)
                  .map(([k, v]) => `${k} ${v}`)
                  .join(', ')}
              </td>
              <td class="actions">
                {p.canManage && (
                  <>
                    <button type="button" class="secondary" onClick={() => setEditing(g)}>
                      Edit <span class="sr-only">{g.name}</span>
                    </button>
                    <button type="button" class="danger" onClick={() => remove(g.name)}>
                      Delete <span class="sr-only">{g.name}</span>
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function GroupForm(p: {
  apiKey: string;
  group: Group | undefined;
  keys: string[];
  descriptions: Record<string, string>;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(p.group?.name ?? '');
  const [permissions, setPermissions] = useState<Record<string, number>>(p.group?.permissions ?? {});
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const set = (key: string, value: string) => {
    const next = { ...permissions };
    if (value === '') delete next[key];
    else next[key] = Number(value);
    setPermissions(next);
  };
  const save = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      p.group
        ? call((c) =>
            c.api.PUT('/restv2/auth/game/{apiKey}/groups/{name}', {
              params: { path: { apiKey: p.apiKey, name: p.group?.name ?? '' } },
              body: { name, permissions },
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/auth/game/{apiKey}/groups', {
              params: { path: { apiKey: p.apiKey } },
              body: { name, permissions },
            }),
          ),
    )
      .then(p.onDone)
      .catch((err) => setFailure(new FormError(err, ['name', 'permissions'])));
  };
  return (
    <form onSubmit={save} class="editor" aria-label={p.group ? `Edit group ${p.group.name}` : 'New group'}>
      <h3>{p.group ? `Edit group ${p.group.name}` : 'New group'}</h3>
      <ErrorSummary failure={failure} />
      <Field label="Group name" value={name} onInput={setName} error={failure?.at('name')} />
      <fieldset>
        <legend>Permission keys</legend>
        <ul class="key-tree">
          {p.keys.map((key) => {
            const depth = key.split('.').length - 1;
            const own = permissions[key];
            const parent = depth > 0 ? levelOf(permissions, key.slice(0, key.lastIndexOf('.'))) : 0;
            return (
              <li key={key} class={`depth-${Math.min(depth, 3)}`} title={p.descriptions[key]}>
                <Select
                  label={key}
                  value={own === undefined ? '' : String(own)}
                  options={[
                    ['', depth > 0 ? `as parent (${LEVELS[parent]})` : 'none'],
                    ['0', '0 none'],
                    ['1', '1 read'],
                    ['2', '2 read and write'],
                  ]}
                  onInput={(v) => set(key, v)}
                />
              </li>
            );
          })}
        </ul>
      </fieldset>
      <div class="buttons">
        <button type="submit" disabled={busy}>
          Save group
        </button>
        <button type="button" class="secondary" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function TransferOwnership(p: { apiKey: string; emails: string[]; onDone: () => void }) {
  const mine = useLoad(
    () =>
      call((c) =>
        c.api.GET('/restv2/auth/game/{apiKey}/permissions', { params: { path: { apiKey: p.apiKey } } }),
      ) as Promise<{ owner: boolean }>,
    [p.apiKey],
  );
  const [email, setEmail] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [status, setStatus] = useState('');
  const [busy, run] = useBusy();
  if (!mine.data?.owner) return null;
  const to = email || p.emails[0] || '';
  const transfer = (e: Event) => {
    e.preventDefault();
    if (!confirmed(`Make ${to} the owner? You become a collaborator in the Administrator group.`)) return;
    setFailure(undefined);
    void run(() =>
      call((c) =>
        c.api.PUT('/restv2/auth/game/{apiKey}/owner', {
          params: { path: { apiKey: p.apiKey } },
          body: { email: to },
        }),
      ),
    )
      .then(() => {
        setStatus(`${to} owns the game now.`);
        p.onDone();
      })
      .catch((err) => setFailure(new FormError(err, ['email'])));
  };
  return (
    <Section title="Transfer ownership">
      <p role="status">{status}</p>
      {p.emails.length === 0 ? (
        <p>Add the future owner as a collaborator first.</p>
      ) : (
        <form onSubmit={transfer} class="inline-form">
          <ErrorSummary failure={failure} />
          <Select
            label="New owner"
            value={to}
            options={p.emails}
            onInput={setEmail}
            error={failure?.at('email')}
          />
          <button type="submit" class="danger" disabled={busy}>
            Transfer ownership
          </button>
        </form>
      )}
    </Section>
  );
}
