// The list part of a configurator page: search, a table of short codes and names, edit and delete buttons.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Alert, confirmed, matches, messageOf, Search, Section } from '../ui.js';

interface Item {
  shortCode: string;
  name: string;
}

export function ConfigList<T extends Item>(p: {
  title: string;
  noun: string;
  newLabel: string;
  items: T[] | undefined;
  loadError: unknown;
  describe: (item: T) => string;
  onNew: () => void;
  onEdit: (item: T) => void;
  onDelete: (item: T) => Promise<unknown>;
  /** The user may change these (else: no New, Edit or Delete). */
  canWrite: boolean;
  children?: ComponentChildren;
}) {
  const [query, setQuery] = useState('');
  const [error, setError] = useState('');
  const remove = (item: T) => {
    if (!confirmed(`Delete the ${p.noun} ${item.shortCode}?`)) return;
    setError('');
    void p.onDelete(item).catch((e) => setError(messageOf(e)));
  };
  return (
    <Section
      title={p.title}
      actions={
        p.canWrite ? (
          <button type="button" onClick={p.onNew}>
            {p.newLabel}
          </button>
        ) : (
          <span>Read only</span>
        )
      }
    >
      {p.children}
      <Search label={`Search ${p.title.toLowerCase()}`} value={query} onInput={setQuery} />
      <Alert text={error} />
      {p.loadError !== undefined && <p class="error">{messageOf(p.loadError)}</p>}
      {p.items?.length === 0 && <p>None yet.</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Short code</th>
            <th scope="col">Name</th>
            <th scope="col">Details</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(p.items ?? [])
            .filter((i) => matches(query, i.shortCode, i.name))
            .map((i) => (
              <tr key={i.shortCode}>
                <td>
                  <code>{i.shortCode}</code>
                </td>
                <td>{i.name}</td>
                <td>{p.describe(i)}</td>
                <td class="actions">
                  {p.canWrite && (
                    <>
                      <button type="button" class="secondary" onClick={() => p.onEdit(i)}>
                        Edit <span class="sr-only">{i.shortCode}</span>
                      </button>
                      <button type="button" class="danger" onClick={() => remove(i)}>
                        Delete <span class="sr-only">{i.shortCode}</span>
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
