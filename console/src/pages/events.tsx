// Events and their attributes: a searchable list, "New event", edit and delete; the API's errors at the field.
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
  Select,
  useBusy,
} from '../ui.js';

interface Attribute {
  name: string;
  shortCode: string;
  dataType: string;
  defaultAggregationType: string;
}
interface EventShape {
  name: string;
  shortCode: string;
  description: string;
  '~attributes'?: Attribute[];
}

const DATA_TYPES = ['int', 'number', 'string', 'json'] as const;
const AGGREGATIONS = ['MAX', 'MIN', 'SUM', 'COUNT', 'LAST', 'SCRIPT', 'GROUPED', 'SUPPLEMENTAL'] as const;

export function EventsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.events', 2);
  const events = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~events', path)) as Promise<EventShape[]>,
    [apiKey],
  );
  const [editing, setEditing] = useState<EventShape | 'new'>();
  const [query, setQuery] = useState('');
  const [error, setError] = useState('');
  const remove = (shortCode: string) => {
    if (!confirmed(`Delete the event ${shortCode}?`)) return;
    void call((c) =>
      c.api.DELETE('/restv2/game/{apiKey}/config/~events/{eventShortCode}', {
        params: { path: { apiKey, eventShortCode: shortCode } },
      }),
    )
      .then(events.reload)
      .catch((e) => setError(messageOf(e)));
  };
  const done = () => {
    setEditing(undefined);
    void events.reload();
  };
  return (
    <>
      <h1>Events</h1>
      <Section
        title="Events"
        actions={
          canWrite ? (
            <button type="button" onClick={() => setEditing('new')}>
              New event
            </button>
          ) : (
            <span>Read only</span>
          )
        }
      >
        {editing && (
          <EventForm
            key={editing === 'new' ? 'new' : editing.shortCode}
            apiKey={apiKey}
            event={editing === 'new' ? undefined : editing}
            onDone={done}
            onCancel={() => setEditing(undefined)}
          />
        )}
        <Search label="Search events" value={query} onInput={setQuery} />
        <Alert text={error} />
        {events.error !== undefined && <p class="error">{messageOf(events.error)}</p>}
        {events.data?.length === 0 && <p>No events yet.</p>}
        <table>
          <thead>
            <tr>
              <th scope="col">Short code</th>
              <th scope="col">Name</th>
              <th scope="col">Attributes</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(events.data ?? [])
              .filter((e) => matches(query, e.shortCode, e.name, e.description))
              .map((e) => (
                <tr key={e.shortCode}>
                  <td>
                    <code>{e.shortCode}</code>
                  </td>
                  <td>{e.name}</td>
                  <td>{(e['~attributes'] ?? []).map((a) => a.shortCode).join(', ')}</td>
                  <td class="actions">
                    {canWrite && (
                      <>
                        <button type="button" class="secondary" onClick={() => setEditing(e)}>
                          Edit <span class="sr-only">{e.shortCode}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => remove(e.shortCode)}>
                          Delete <span class="sr-only">{e.shortCode}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}

const blankAttribute = (): Attribute => ({
  name: '',
  shortCode: '',
  dataType: 'int',
  defaultAggregationType: 'MAX',
});

function EventForm(p: { apiKey: string; event?: EventShape; onDone: () => void; onCancel: () => void }) {
  const [event, setEvent] = useState<EventShape>(
    p.event
      ? {
          name: p.event.name,
          shortCode: p.event.shortCode,
          description: p.event.description,
          '~attributes': (p.event['~attributes'] ?? []).map((a) => ({
            name: a.name,
            shortCode: a.shortCode,
            dataType: a.dataType,
            defaultAggregationType: a.defaultAggregationType,
          })),
        }
      : { name: '', shortCode: '', description: '', '~attributes': [] },
  );
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const attributes = event['~attributes'] ?? [];
  const set = (patch: Partial<EventShape>) => setEvent({ ...event, ...patch });
  const setAttribute = (i: number, patch: Partial<Attribute>) =>
    set({ '~attributes': attributes.map((a, j) => (i === j ? { ...a, ...patch } : a)) });
  const fields = ['name', 'shortCode', 'description'];
  attributes.forEach((_, i) => {
    for (const f of ['name', 'shortCode', 'dataType', 'defaultAggregationType'])
      fields.push(`~attributes.${i}.${f}`);
  });
  const at = (field: string) => failure?.at(field);

  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      p.event
        ? call((c) =>
            c.api.PUT('/restv2/game/{apiKey}/config/~events/{eventShortCode}', {
              params: { path: { apiKey: p.apiKey, eventShortCode: p.event?.shortCode ?? '' } },
              body: { name: event.name, description: event.description, '~attributes': attributes } as never,
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/game/{apiKey}/config/~events', {
              params: { path: { apiKey: p.apiKey } },
              body: event as never,
            }),
          ),
    )
      .then(p.onDone)
      .catch((err) => setFailure(new FormError(err, fields)));
  };
  return (
    <form
      onSubmit={submit}
      aria-label={p.event ? `Edit event ${p.event.shortCode}` : 'New event'}
      class="editor"
    >
      <h3>{p.event ? `Edit event ${p.event.shortCode}` : 'New event'}</h3>
      <ErrorSummary failure={failure} />
      <div class="row">
        <Field label="Name" value={event.name} onInput={(name) => set({ name })} error={at('name')} />
        <Field
          label="Short code"
          value={event.shortCode}
          onInput={(shortCode) => set({ shortCode })}
          error={p.event ? undefined : at('shortCode')}
          hint={p.event ? 'The short code of an existing event cannot change.' : undefined}
        />
      </div>
      <Field
        label="Description"
        value={event.description}
        onInput={(description) => set({ description })}
        error={at('description')}
      />
      <fieldset>
        <legend>Attributes</legend>
        {attributes.map((a, i) => {
          const n = i + 1;
          const err = (f: string) => at(`~attributes.${i}.${f}`);
          return (
            <div class="row attribute" key={i}>
              <Field
                label={`Attribute ${n} name`}
                value={a.name}
                onInput={(name) => setAttribute(i, { name })}
                error={err('name')}
              />
              <Field
                label={`Attribute ${n} short code`}
                value={a.shortCode}
                onInput={(shortCode) => setAttribute(i, { shortCode })}
                error={err('shortCode')}
              />
              <Select
                label={`Attribute ${n} data type`}
                value={a.dataType}
                options={DATA_TYPES}
                onInput={(dataType) => setAttribute(i, { dataType })}
                error={err('dataType')}
              />
              <Select
                label={`Attribute ${n} aggregation`}
                value={a.defaultAggregationType}
                options={AGGREGATIONS}
                onInput={(defaultAggregationType) => setAttribute(i, { defaultAggregationType })}
                error={err('defaultAggregationType')}
              />
              <button
                type="button"
                class="secondary"
                onClick={() => set({ '~attributes': attributes.filter((_, j) => j !== i) })}
              >
                Remove attribute {n}
              </button>
            </div>
          );
        })}
        <button
          type="button"
          class="secondary"
          onClick={() => set({ '~attributes': [...attributes, blankAttribute()] })}
        >
          Add attribute
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
