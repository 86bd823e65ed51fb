// Below the snapshot list: copy a snapshot to a new game or over another of the caller's games, and the full
// configuration difference between any two snapshots, or a snapshot and the working copy (the original compared
// only scripts). Scripts are shown as their source, one block per script, so a change reads as lines of code.
import { useState } from 'preact/hooks';
import { changedLines, jsonText, UnifiedDiff } from '../diff-view.js';
import { useLoad } from '../load.js';
import { href } from '../route.js';
import { call } from '../session.js';
import { Alert, messageOf, Section, Select, useBusy } from '../ui.js';

interface Snapshot {
  id: string;
  description: string;
  created: string;
}
export const WORKING_COPY = 'working';

/** A configuration as text to compare: the JSON with sorted keys, then each script's source under its name. */
export function configText(config: unknown): string {
  const { '~scripts': scripts, ...rest } = (config ?? {}) as Record<string, unknown>;
  const blocks = ((scripts ?? []) as { folder: string; shortCode: string; script: string }[]).map(
    (s) => `\n=== ${s.folder}/${s.shortCode}.js ===\n${s.script.replace(/\n?$/, '\n')}`,
  );
  return `${jsonText(rest)}${blocks.join('')}`;
}

const labelOf = (s: Snapshot) => `${s.description || s.id} (${s.created.slice(0, 16).replace('T', ' ')})`;

export function CompareSnapshots({ apiKey, snapshots }: { apiKey: string; snapshots: Snapshot[] }) {
  const [from, setFrom] = useState(snapshots[0]?.id ?? '');
  const [to, setTo] = useState(WORKING_COPY);
  const [busy, run] = useBusy();
  const [error, setError] = useState('');
  const [result, setResult] = useState<{ title: string; before: string; after: string }>();
  const options: [string, string][] = [
    [WORKING_COPY, 'Working copy'],
    ...snapshots.map((s): [string, string] => [s.id, labelOf(s)]),
  ];
  const read = async (id: string) =>
    configText(
      id === WORKING_COPY
        ? await call((c) =>
            c.api.GET('/restv2/game/{apiKey}/config', {
              params: { path: { apiKey }, query: { full: true } },
            }),
          )
        : (
            await call((c) =>
              c.api.GET('/restv2/game/{apiKey}/admin/snapshots/{id}', {
                params: { path: { apiKey, id }, query: { full: true } },
              }),
            )
          ).config,
    );
  const compare = (e: Event) => {
    e.preventDefault();
    setError('');
    const name = (id: string) => options.find(([v]) => v === id)?.[1] ?? id;
    void run(async () => {
      const [before, after] = await Promise.all([read(from || WORKING_COPY), read(to)]);
      setResult({ title: `${name(from)} → ${name(to)}`, before, after });
    }).catch((err) => setError(messageOf(err)));
  };
  return (
    <Section title="Compare configurations">
      <form onSubmit={compare} class="inline-form">
        <Select label="From" value={from} options={options} onInput={setFrom} />
        <Select label="To" value={to} options={options} onInput={setTo} />
        <button type="submit" disabled={busy}>
          Compare
        </button>
      </form>
      <Alert text={error} />
      {result && (
        <>
          <h3>{result.title}</h3>
          {!changedLines(result.before, result.after) && <p>No difference.</p>}
          <UnifiedDiff label="Configuration difference" before={result.before} after={result.after} />
        </>
      )}
    </Section>
  );
}

export function CopySnapshot({ apiKey, snapshots }: { apiKey: string; snapshots: Snapshot[] }) {
  const games = useLoad(() => call((c) => c.api.GET('/restv2/games')), []);
  const [id, setId] = useState(snapshots[0]?.id ?? '');
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [includeMeta, setIncludeMeta] = useState(true);
  const [includeCollaborators, setIncludeCollaborators] = useState(false);
  const [busy, run] = useBusy();
  const [error, setError] = useState('');
  const [done, setDone] = useState<string>();
  const others = (games.data ?? []).filter((g) => g.apiKey !== apiKey);
  const copy = (e: Event) => {
    e.preventDefault();
    setError('');
    setDone(undefined);
    const snapshot = id || snapshots[0]?.id || '';
    const query = { includeConfig: true, includeMeta, includeCollaborators };
    const over = others.find((g) => g.apiKey === target);
    if (
      over &&
      !window.confirm(`Copy over "${over.name}"? Its working copy is saved first as AUTOSAVE - Pre Copy.`)
    )
      return;
    void run(() =>
      over
        ? call((c) =>
            c.api.POST('/restv2/game/{apiKey}/admin/snapshots/{id}/copy/to/{targetApiKey}', {
              params: { path: { apiKey, id: snapshot, targetApiKey: over.apiKey }, query },
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/game/{apiKey}/admin/snapshots/{id}/copy', {
              params: { path: { apiKey, id: snapshot }, query: { ...query, ...(name ? { name } : {}) } },
            }),
          ),
    )
      .then((r) => {
        setDone(r?.targetGameApiKey);
        void games.reload();
      })
      .catch((err) => setError(messageOf(err)));
  };
  return (
    <Section title="Copy a snapshot to another game">
      <form onSubmit={copy}>
        <Select
          label="Snapshot to copy"
          value={id}
          options={snapshots.map((s): [string, string] => [s.id, labelOf(s)])}
          onInput={setId}
        />
        <Select
          label="Copy to"
          value={target}
          options={[
            ['', 'A new game'],
            ...others.map((g): [string, string] => [g.apiKey, `${g.name} (${g.apiKey})`]),
          ]}
          onInput={setTarget}
        />
        {target === '' && (
          <div class="field">
            <label for="copy-name">New game's name</label>
            <input id="copy-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
        )}
        <label class="check">
          <input
            type="checkbox"
            checked={includeMeta}
            onChange={(e) => setIncludeMeta(e.currentTarget.checked)}
          />{' '}
          Include meta collections
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={includeCollaborators}
            onChange={(e) => setIncludeCollaborators(e.currentTarget.checked)}
          />{' '}
          Include collaborators
        </label>
        <button type="submit" disabled={busy || snapshots.length === 0}>
          Copy snapshot
        </button>
      </form>
      <Alert text={error} />
      {done && (
        <p role="status">
          Copied to <a href={href({ page: 'game', apiKey: done, section: 'overview' })}>{done}</a>.
        </p>
      )}
    </Section>
  );
}
