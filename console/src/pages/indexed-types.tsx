// Indexed types of the data service: a short code, a name and the fields to index (name and string/number).
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import { ErrorSummary, Field, FormError, Select, useBusy } from '../ui.js';
import { ConfigList } from './config-list.js';

interface IndexedType {
  shortCode: string;
  name: string;
  fields: { name: string; type: string }[];
}

export function IndexedTypesPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.indexedTypes', 2);
  const types = useLoad(
    () =>
      call((c) => c.api.GET('/restv2/game/{apiKey}/config/~indexedTypes', path)) as Promise<IndexedType[]>,
    [apiKey],
  );
  const [editing, setEditing] = useState<IndexedType | 'new'>();
  return (
    <>
      <h1>Indexed types</h1>
      <ConfigList
        title="Indexed types"
        noun="indexed type"
        newLabel="New indexed type"
        items={types.data}
        canWrite={canWrite}
        loadError={types.error}
        describe={(t) => t.fields.map((f) => `${f.name} (${f.type})`).join(', ')}
        onNew={() => setEditing('new')}
        onEdit={setEditing}
        onDelete={(t) =>
          call((c) =>
            c.api.DELETE('/restv2/game/{apiKey}/config/~indexedTypes/{shortCode}', {
              params: { path: { apiKey, shortCode: t.shortCode } },
            }),
          ).then(types.reload)
        }
      >
        {editing && (
          <IndexedTypeForm
            key={editing === 'new' ? 'new' : editing.shortCode}
            apiKey={apiKey}
            type={editing === 'new' ? undefined : editing}
            onDone={() => {
              setEditing(undefined);
              void types.reload();
            }}
            onCancel={() => setEditing(undefined)}
          />
        )}
      </ConfigList>
    </>
  );
}

function IndexedTypeForm(p: {
  apiKey: string;
  type?: IndexedType;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [shortCode, setShortCode] = useState(p.type?.shortCode ?? '');
  const [name, setName] = useState(p.type?.name ?? '');
  const [fields, setFields] = useState(p.type?.fields ?? [{ name: '', type: 'string' }]);
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const names = ['shortCode', 'name', ...fields.flatMap((_, i) => [`fields.${i}.name`, `fields.${i}.type`])];
  const setField = (i: number, patch: Partial<IndexedType['fields'][number]>) =>
    setFields(fields.map((f, j) => (i === j ? { ...f, ...patch } : f)));
  const submit = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      p.type
        ? call((c) =>
            c.api.PUT('/restv2/game/{apiKey}/config/~indexedTypes/{shortCode}', {
              params: { path: { apiKey: p.apiKey, shortCode: p.type?.shortCode ?? '' } },
              body: { name, fields } as never,
            }),
          )
        : call((c) =>
            c.api.POST('/restv2/game/{apiKey}/config/~indexedTypes', {
              params: { path: { apiKey: p.apiKey } },
              body: { shortCode, name, fields } as never,
            }),
          ),
    )
      .then(p.onDone)
      .catch((err) => setFailure(new FormError(err, names)));
  };
  return (
    <form onSubmit={submit} class="editor" aria-label="Indexed type">
      <h3>{p.type ? `Edit indexed type ${p.type.shortCode}` : 'New indexed type'}</h3>
      <ErrorSummary failure={failure} />
      <div class="row">
        <Field label="Name" value={name} onInput={setName} error={failure?.at('name')} />
        <Field
          label="Short code"
          value={shortCode}
          onInput={setShortCode}
          error={p.type ? undefined : failure?.at('shortCode')}
        />
      </div>
      <fieldset>
        <legend>Indexed fields</legend>
        {fields.map((f, i) => (
          <div class="row" key={i}>
            <Field
              label={`Field ${i + 1} name`}
              value={f.name}
              onInput={(v) => setField(i, { name: v })}
              error={failure?.at(`fields.${i}.name`)}
            />
            <Select
              label={`Field ${i + 1} type`}
              value={f.type}
              options={['string', 'number']}
              onInput={(type) => setField(i, { type })}
              error={failure?.at(`fields.${i}.type`)}
            />
            <button
              type="button"
              class="secondary"
              onClick={() => setFields(fields.filter((_, j) => j !== i))}
            >
              Remove field {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() => setFields([...fields, { name: '', type: 'string' }])}
        >
          Add field
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
