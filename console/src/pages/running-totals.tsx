// Running totals: an event, and collectors (an attribute of that event and a calculation).
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import { ErrorSummary, Field, FormError, Select, useBusy } from '../ui.js';
import { ConfigList } from './config-list.js';

interface Ref {
  '@ref': string;
}
interface Collector {
  attribute: Ref;
  calculation: string;
}
export interface RunningTotal {
  shortCode: string;
  name: string;
  description?: string;
  event: Ref;
  collectors: Collector[];
}
interface EventInfo {
  shortCode: string;
  '~attributes'?: { shortCode: string }[];
}

const CALCULATIONS = ['MAX', 'MIN', 'SUM', 'COUNT', 'LAST', 'SUPPLEMENTAL'] as const;
const last = (ref: string) => ref.split('/').pop() ?? '';

export function RunningTotalsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.runningTotals', 2);
  const totals = useLoad(
    () =>
      call((c) => c.api.GET('/restv2/game/{apiKey}/config/~runningTotals', path)) as Promise<RunningTotal[]>,
    [apiKey],
  );
  const events = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~events', path)) as Promise<EventInfo[]>,
    [apiKey],
  );
  const [editing, setEditing] = useState<RunningTotal | 'new'>();
  const done = () => {
    setEditing(undefined);
    void totals.reload();
  };
  return (
    <>
      <h1>Running totals</h1>
      <ConfigList
        title="Running totals"
        noun="running total"
        newLabel="New running total"
        items={totals.data}
        canWrite={canWrite}
        loadError={totals.error}
        describe={(t) =>
          `${last(t.event['@ref'])}: ${t.collectors.map((c) => `${c.calculation} ${last(c.attribute['@ref'])}`).join(', ')}`
        }
        onNew={() => setEditing('new')}
        onEdit={setEditing}
        onDelete={(t) =>
          call((c) =>
            c.api.DELETE('/restv2/game/{apiKey}/config/~runningTotals/{shortCode}', {
              params: { path: { apiKey, shortCode: t.shortCode } },
            }),
          ).then(totals.reload)
        }
      >
        {editing && (
          <RunningTotalForm
            key={editing === 'new' ? 'new' : editing.shortCode}
            apiKey={apiKey}
            events={events.data ?? []}
            total={editing === 'new' ? undefined : editing}
            onDone={done}
            onCancel={() => setEditing(undefined)}
          />
        )}
      </ConfigList>
    </>
  );
}

function RunningTotalForm(p: {
  apiKey: string;
  events: EventInfo[];
  total?: RunningTotal;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [shortCode, setShortCode] = useState(p.total?.shortCode ?? '');
  const [name, setName] = useState(p.total?.name ?? '');
  const [chosenEvent, setEvent] = useState(p.total ? last(p.total.event['@ref']) : '');
  // The events may arrive after the form opens: until one is chosen, the first.
  const event = chosenEvent || p.events[0]?.shortCode || '';
  const [collectors, setCollectors] = useState(
    p.total?.collectors.map((c) => ({
      attribute: last(c.attribute['@ref']),
      calculation: c.calculation,
    })) ?? [{ attribute: '', calculation: 'SUM' }],
  );
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const attributes = p.events.find((e) => e.shortCode === event)?.['~attributes'] ?? [];
  const fields = ['shortCode', 'name', 'event', ...collectors.map((_, i) => `collectors.${i}.attribute`)];
  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    const body = {
      shortCode,
      name,
      event: { '@ref': `/~events/${event}` },
      collectors: collectors.map((c) => ({
        attribute: {
          '@ref': `/~events/${event}/~attributes/${c.attribute || attributes[0]?.shortCode || ''}`,
        },
        calculation: c.calculation,
      })),
    };
    void run(() =>
      p.total
        ? call((c) =>
            c.api.PUT('/restv2/game/{apiKey}/config/~runningTotals/{shortCode}', {
              params: { path: { apiKey: p.apiKey, shortCode: p.total?.shortCode ?? '' } },
              body: { name, event: body.event, collectors: body.collectors } as never,
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/game/{apiKey}/config/~runningTotals', {
              params: { path: { apiKey: p.apiKey } },
              body: body as never,
            }),
          ),
    )
      .then(p.onDone)
      .catch((err) => setFailure(new FormError(err, fields)));
  };
  return (
    <form onSubmit={submit} class="editor" aria-label="Running total">
      <h3>{p.total ? `Edit running total ${p.total.shortCode}` : 'New running total'}</h3>
      <ErrorSummary failure={failure} />
      <div class="row">
        <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
        <Field
          label="Short code"
          value={shortCode}
          onInput={setShortCode}
          error={p.total ? undefined : failure?.at('shortCode')}
        />
        <Select
          label="Event"
          value={event}
          options={p.events.map((e) => e.shortCode)}
          onInput={setEvent}
          error={failure?.at('event')}
        />
      </div>
      <fieldset>
        <legend>Collectors</legend>
        {collectors.map((c, i) => (
          <div class="row" key={i}>
            <Select
              label={`Collector ${i + 1} attribute`}
              value={c.attribute || attributes[0]?.shortCode || ''}
              options={attributes.map((a) => a.shortCode)}
              onInput={(attribute) =>
                setCollectors(collectors.map((x, j) => (i === j ? { ...x, attribute } : x)))
              }
              error={failure?.at(`collectors.${i}.attribute`)}
            />
            <Select
              label={`Collector ${i + 1} calculation`}
              value={c.calculation}
              options={CALCULATIONS}
              onInput={(calculation) =>
                setCollectors(collectors.map((x, j) => (i === j ? { ...x, calculation } : x)))
              }
            />
            <button
              type="button"
              class="secondary"
              onClick={() => setCollectors(collectors.filter((_, j) => j !== i))}
            >
              Remove collector {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() => setCollectors([...collectors, { attribute: '', calculation: 'SUM' }])}
        >
          Add collector
        </button>
      </fieldset>
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
