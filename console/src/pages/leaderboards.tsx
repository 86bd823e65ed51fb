// Leaderboards: fields (a running total's collector and a sort order), partitions, reset frequency.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import { ErrorSummary, Field, FormError, Select, useBusy } from '../ui.js';
import { ConfigList } from './config-list.js';
import type { RunningTotal } from './running-totals.js';

interface LbField {
  runningTotal: { '@ref': string };
  collector: string;
  sort: string;
}
interface Leaderboard {
  shortCode: string;
  name: string;
  fields: LbField[];
  partitions?: { attribute: string }[];
  resetFrequency?: string;
}

const RESETS = ['NEVER', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
const last = (ref: string) => ref.split('/').pop() ?? '';

export function LeaderboardsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.leaderboards', 2);
  const boards = useLoad(
    () =>
      call((c) => c.api.GET('/restv2/game/{apiKey}/config/~leaderboards', path)) as Promise<Leaderboard[]>,
    [apiKey],
  );
  const totals = useLoad(
    () =>
      call((c) => c.api.GET('/restv2/game/{apiKey}/config/~runningTotals', path)) as Promise<RunningTotal[]>,
    [apiKey],
  );
  const [editing, setEditing] = useState<Leaderboard | 'new'>();
  return (
    <>
      <h1>Leaderboards</h1>
      <ConfigList
        title="Leaderboards"
        noun="leaderboard"
        newLabel="New leaderboard"
        items={boards.data}
        canWrite={canWrite}
        loadError={boards.error}
        describe={(b) =>
          `${b.fields.map((f) => `${last(f.runningTotal['@ref'])}.${f.collector} ${f.sort}`).join(', ')}; reset ${b.resetFrequency ?? 'NEVER'}`
        }
        onNew={() => setEditing('new')}
        onEdit={setEditing}
        onDelete={(b) =>
          call((c) =>
            c.api.DELETE('/restv2/game/{apiKey}/config/~leaderboards/{shortCode}', {
              params: { path: { apiKey, shortCode: b.shortCode } },
            }),
          ).then(boards.reload)
        }
      >
        {editing && (
          <LeaderboardForm
            key={editing === 'new' ? 'new' : editing.shortCode}
            apiKey={apiKey}
            totals={totals.data ?? []}
            board={editing === 'new' ? undefined : editing}
            onDone={() => {
              setEditing(undefined);
              void boards.reload();
            }}
            onCancel={() => setEditing(undefined)}
          />
        )}
      </ConfigList>
    </>
  );
}

function LeaderboardForm(p: {
  apiKey: string;
  totals: RunningTotal[];
  board?: Leaderboard;
  onDone: () => void;
  onCancel: () => void;
}) {
  const b = p.board;
  const [shortCode, setShortCode] = useState(b?.shortCode ?? '');
  const [name, setName] = useState(b?.name ?? '');
  const [fields, setFields] = useState(
    b?.fields.map((f) => ({ total: last(f.runningTotal['@ref']), collector: f.collector, sort: f.sort })) ?? [
      { total: p.totals[0]?.shortCode ?? '', collector: '', sort: 'DESC' },
    ],
  );
  const [partitions, setPartitions] = useState((b?.partitions ?? []).map((x) => x.attribute).join(', '));
  const [resetFrequency, setReset] = useState(b?.resetFrequency ?? 'NEVER');
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  // The running totals may arrive after the form opens: until one is chosen, the first.
  const totalOf = (f: { total: string }) => f.total || p.totals[0]?.shortCode || '';
  const collectorsOf = (total: string) =>
    (p.totals.find((t) => t.shortCode === total)?.collectors ?? []).map((c) => last(c.attribute['@ref']));
  const names = ['shortCode', 'name', 'partitions', 'resetFrequency', ...fields.map((_, i) => `fields.${i}`)];
  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    const body = {
      name,
      fields: fields.map((f) => ({
        runningTotal: { '@ref': `/~runningTotals/${totalOf(f)}` },
        collector: f.collector || collectorsOf(totalOf(f))[0] || '',
        sort: f.sort,
      })),
      partitions: partitions
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((attribute) => ({ attribute })),
      resetFrequency,
    };
    void run(() =>
      b
        ? call((c) =>
            c.api.PUT('/restv2/game/{apiKey}/config/~leaderboards/{shortCode}', {
              params: { path: { apiKey: p.apiKey, shortCode: b.shortCode } },
              body: body as never,
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/game/{apiKey}/config/~leaderboards', {
              params: { path: { apiKey: p.apiKey } },
              body: { shortCode, ...body } as never,
            }),
          ),
    )
      .then(p.onDone)
      .catch((err) => setFailure(new FormError(err, names)));
  };
  const setField = (i: number, patch: Partial<(typeof fields)[number]>) =>
    setFields(fields.map((f, j) => (i === j ? { ...f, ...patch } : f)));
  return (
    <form onSubmit={submit} class="editor" aria-label="Leaderboard">
      <h3>{b ? `Edit leaderboard ${b.shortCode}` : 'New leaderboard'}</h3>
      <ErrorSummary failure={failure} />
      <div class="row">
        <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
        <Field
          label="Short code"
          value={shortCode}
          onInput={setShortCode}
          error={b ? undefined : failure?.at('shortCode')}
        />
        <Select label="Reset frequency" value={resetFrequency} options={RESETS} onInput={setReset} />
      </div>
      <fieldset>
        <legend>Fields</legend>
        {fields.map((f, i) => (
          <div class="row" key={i}>
            <Select
              label={`Field ${i + 1} running total`}
              value={totalOf(f)}
              options={p.totals.map((t) => t.shortCode)}
              onInput={(total) => setField(i, { total, collector: '' })}
              error={failure?.at(`fields.${i}.runningTotal`)}
            />
            <Select
              label={`Field ${i + 1} collector`}
              value={f.collector || collectorsOf(totalOf(f))[0] || ''}
              options={collectorsOf(totalOf(f))}
              onInput={(collector) => setField(i, { collector })}
              error={failure?.at(`fields.${i}.collector`)}
            />
            <Select
              label={`Field ${i + 1} sort`}
              value={f.sort}
              options={['DESC', 'ASC']}
              onInput={(sort) => setField(i, { sort })}
            />
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() =>
            setFields([...fields, { total: p.totals[0]?.shortCode ?? '', collector: '', sort: 'DESC' }])
          }
        >
          Add field
        </button>
      </fieldset>
      <Field
        label="Partitions"
        hint="Attribute short codes, separated by commas"
        value={partitions}
        onInput={setPartitions}
        error={failure?.at('partitions')}
      />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="secondary" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
