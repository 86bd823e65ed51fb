// A collection's indexes (list, create, drop), its stats, and dropping it, as its actions allow.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { onStage } from '../stage.js';
import { confirmed, Field, messageOf, Section, useBusy } from '../ui.js';
import type { Collection } from './collection.js';
import { JsonField, JsonTree, jsonProblem, parsed } from './widgets.js';

export function IndexesPanel({
  apiKey,
  c,
  onDropped,
}: {
  apiKey: string;
  c: Collection;
  onDropped: () => void;
}) {
  const admin = useCan()('nosql.admin', 2);
  const path = { gameApiKey: apiKey, collectionName: c.name };
  const [busy, run] = useBusy();
  const [name, setName] = useState('');
  const [keys, setKeys] = useState('');
  const [unique, setUnique] = useState(false);
  const [error, setError] = useState('');
  const [stats, setStats] = useState<unknown>();
  const indexes = useLoad(
    () =>
      c.actions.includes('INDEX')
        ? onStage(apiKey, (s) =>
            s.GET('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/indices', {
              params: { path },
            }),
          )
        : Promise.resolve([]),
    [apiKey, c.name],
  );
  const act = (work: () => Promise<unknown>) => {
    setError('');
    void run(work).catch((e) => setError(messageOf(e)));
  };
  const create = (e: Event) => {
    e.preventDefault();
    act(async () => {
      await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/index/{indexName}', {
          params: { path: { ...path, indexName: name }, query: unique ? { unique: 'true' } : {} },
          body: parsed<Record<string, 1 | -1>>(keys) ?? {},
        }),
      );
      setName('');
      setKeys('');
      await indexes.reload();
    });
  };
  const drop = (indexName: string) => {
    if (!confirmed(`Drop the index ${indexName} of ${c.name}?`)) return;
    act(async () => {
      await onStage(apiKey, (s) =>
        s.DELETE('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/index/{indexName}', {
          params: { path: { ...path, indexName } },
        }),
      );
      await indexes.reload();
    });
  };
  const dropCollection = () => {
    if (!confirmed(`Drop the collection ${c.name} and every document in it?`)) return;
    act(async () => {
      await onStage(apiKey, (s) =>
        s.DELETE('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}', { params: { path } }),
      );
      onDropped();
    });
  };
  const showStats = () =>
    act(async () =>
      setStats(
        await onStage(apiKey, (s) =>
          s.GET('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/stats', { params: { path } }),
        ),
      ),
    );
  const list = indexes.data ?? [];
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {c.actions.includes('INDEX') && (
        <Section title="Indexes">
          {indexes.error !== undefined && <p class="error">{messageOf(indexes.error)}</p>}
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Keys</th>
                <th scope="col">Unique</th>
                {admin && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((i) => (
                <tr key={i.name}>
                  <td>{i.name}</td>
                  <td>
                    <code>{JSON.stringify(i.key)}</code>
                  </td>
                  <td>{i.unique ? 'yes' : 'no'}</td>
                  {admin && (
                    <td>
                      {i.name !== '_id_' && (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Drop index ${i.name}`}
                          onClick={() => drop(i.name)}
                        >
                          Drop
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {admin && (
            <form class="row" onSubmit={create} aria-label="New index">
              <Field label="Index name" value={name} onInput={setName} required />
              <JsonField
                label="Index keys"
                value={keys}
                onInput={setKeys}
                required
                hint='e.g. {"level": -1}'
              />
              <label class="check">
                <input
                  type="checkbox"
                  checked={unique}
                  onChange={(e) => setUnique((e.target as HTMLInputElement).checked)}
                />
                Unique
              </label>
              <button type="submit" disabled={busy || !name || !!jsonProblem(keys, 'object', true)}>
                Create index
              </button>
            </form>
          )}
        </Section>
      )}
      {(c.actions.includes('STATS') || (c.actions.includes('DROP') && admin)) && (
        <Section title="Collection">
          <div class="buttons">
            {c.actions.includes('STATS') && (
              <button type="button" class="secondary" disabled={busy} onClick={showStats}>
                Collection stats
              </button>
            )}
            {c.actions.includes('DROP') && admin && (
              <button type="button" class="danger" disabled={busy} onClick={dropCollection}>
                Drop collection
              </button>
            )}
          </div>
          {stats !== undefined && <JsonTree value={stats} name="stats" open />}
        </Section>
      )}
    </>
  );
}
