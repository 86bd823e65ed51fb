// The Data Explorer: the stage's collections grouped as the nosql server lists them, each with only the actions
// it allows; database stats; creating runtime and meta collections; the mongo and data exports with their
// download links; and the data service's types and items.
import { useState } from 'preact/hooks';
import { type Collection, CollectionView } from '../data/collection.js';
import { DataService } from '../data/data-service.js';
import { JsonTree, StageSwitch } from '../data/widgets.js';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { onStage, stage } from '../stage.js';
import { Field, messageOf, Section, useBusy } from '../ui.js';

const GROUPS = ['System', 'Runtime', 'Meta', 'Leaderboards', 'Running Totals'];

export function DataExplorerPage({ apiKey }: { apiKey: string }) {
  const can = useCan();
  const path = { params: { path: { gameApiKey: apiKey } } };
  const [selected, setSelected] = useState<string>();
  const [view, setView] = useState<'collections' | 'data'>('collections');
  const collections = useLoad(
    () => onStage(apiKey, (s) => s.GET('/restv2/game/{gameApiKey}/mongo/collections', path)),
    [apiKey, stage.value],
  );
  const list = (collections.data ?? []) as Collection[];
  const current = list.find((c) => c.name === selected);
  const groups = [...GROUPS, ...new Set(list.map((c) => c.optionGroup).filter((g) => !GROUPS.includes(g)))];
  return (
    <>
      <h1>Data Explorer</h1>
      <div class="row">
        <StageSwitch onChange={() => setSelected(undefined)} />
        <fieldset class="stage-switch">
          <legend>Store</legend>
          <label class="check">
            <input
              type="radio"
              name="store"
              checked={view === 'collections'}
              onChange={() => setView('collections')}
            />
            Collections
          </label>
          <label class="check">
            <input type="radio" name="store" checked={view === 'data'} onChange={() => setView('data')} />
            Data service
          </label>
        </fieldset>
      </div>
      {view === 'data' ? (
        <DataService key={stage.value} apiKey={apiKey} />
      ) : (
        <div class="explorer">
          <nav class="collections" aria-label="Collections">
            {collections.error !== undefined && (
              <p class="error" role="alert">
                {messageOf(collections.error)}
              </p>
            )}
            {groups.map((g) => {
              const members = list.filter((c) => c.optionGroup === g);
              return (
                members.length > 0 && (
                  <div key={g}>
                    <h2>{g}</h2>
                    <ul>
                      {members.map((c) => (
                        <li key={c.name}>
                          <button
                            type="button"
                            class="link"
                            aria-pressed={c.name === selected}
                            onClick={() => setSelected(c.name)}
                          >
                            {c.name}
                          </button>
                        </li>
                      ))}
                    </ul>
                  </div>
                )
              );
            })}
            {can('nosql.admin', 2) && <NewCollection apiKey={apiKey} onMade={collections.reload} />}
          </nav>
          <div class="collection">
            {current ? (
              <CollectionView
                key={`${stage.value}/${current.name}`}
                apiKey={apiKey}
                c={current}
                onDropped={() => {
                  setSelected(undefined);
                  void collections.reload();
                }}
              />
            ) : (
              <p>Choose a collection.</p>
            )}
          </div>
        </div>
      )}
      <Database apiKey={apiKey} />
    </>
  );
}

function NewCollection({ apiKey, onMade }: { apiKey: string; onMade: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'runtime' | 'meta'>('runtime');
  const [error, setError] = useState('');
  const [busy, run] = useBusy();
  const make = (e: Event) => {
    e.preventDefault();
    setError('');
    const params = { params: { path: { gameApiKey: apiKey, collectionName: name } } };
    void run(async () => {
      await onStage(apiKey, (s) =>
        kind === 'runtime'
          ? s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/runtime', params)
          : s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/meta', params),
      );
      setName('');
      await onMade();
    }).catch((err) => setError(messageOf(err)));
  };
  return (
    <form onSubmit={make} aria-label="New collection">
      <h2>New collection</h2>
      <Field
        label="Collection name"
        value={name}
        onInput={setName}
        hint="Without the script. or meta. prefix"
      />
      <label class="check">
        <input type="radio" name="kind" checked={kind === 'runtime'} onChange={() => setKind('runtime')} />
        Runtime (script.)
      </label>
      <label class="check">
        <input type="radio" name="kind" checked={kind === 'meta'} onChange={() => setKind('meta')} />
        Meta (meta., Preview only)
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy || !name}>
        Create collection
      </button>
    </form>
  );
}

/** Database stats and the two exports, each answered with a download link valid for 24 hours. */
function Database({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { gameApiKey: apiKey } } };
  const [busy, run] = useBusy();
  const [stats, setStats] = useState<unknown>();
  const [links, setLinks] = useState<{ what: string; url: string; count: number; expiresAt: string }[]>([]);
  const [error, setError] = useState('');
  const act = (work: () => Promise<void>) => {
    setError('');
    void run(work).catch((e) => setError(messageOf(e)));
  };
  const exportOf = (what: 'mongo' | 'data') =>
    act(async () => {
      const r = await onStage(apiKey, (s) =>
        what === 'mongo'
          ? s.GET('/restv2/game/{gameApiKey}/mongo/export', path)
          : s.GET('/restv2/game/{gameApiKey}/data/export', path),
      );
      const label = `${what === 'mongo' ? 'Collections' : 'Data service'} export (${stage.value})`;
      setLinks([{ what: label, url: r.url, count: r.count, expiresAt: r.expiresAt }, ...links]);
    });
  return (
    <Section title="Database">
      <div class="buttons">
        <button
          type="button"
          class="secondary"
          disabled={busy}
          onClick={() =>
            act(async () =>
              setStats(await onStage(apiKey, (s) => s.GET('/restv2/game/{gameApiKey}/mongo/stats', path))),
            )
          }
        >
          Database stats
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => exportOf('mongo')}>
          Export collections
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => exportOf('data')}>
          Export data service
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {stats !== undefined && <JsonTree value={stats} name="database stats" open />}
      <ul>
        {links.map((l) => (
          <li key={l.url}>
            <a href={l.url} download>
              Download {l.what}
            </a>{' '}
            ({l.count} lines, link valid until {l.expiresAt.slice(0, 16).replace('T', ' ')} UTC)
          </li>
        ))}
      </ul>
    </Section>
  );
}
