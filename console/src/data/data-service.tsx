// The data service of a stage: its declared types; per type a query builder over the declared fields (AND, OR
// or NOT of rules, with the equivalent JSON body shown), paged items, and get, put and delete by id.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { onStage } from '../stage.js';
import { confirmed, Field, messageOf, Section, Select, useBusy } from '../ui.js';
import { compact, JsonField, jsonProblem, parsed } from './widgets.js';

interface DataType {
  shortCode: string;
  name: string;
  fields: { name: string; type: string }[];
}
interface Rule {
  field: string;
  operator: string;
  value: string;
}
interface Item {
  id: string;
  data: unknown;
  version: number;
  expiresAt: string | null;
}

type Condition = 'AND' | 'OR' | 'NOT';
const OPERATORS = ['EQ', 'NE', 'LT', 'GT', 'LE', 'GE', 'IN', 'STARTSWITH'];

export function DataService({ apiKey }: { apiKey: string }) {
  const types = useLoad(
    () =>
      onStage(apiKey, (s) =>
        s.GET('/restv2/game/{gameApiKey}/data/datatypes', { params: { path: { gameApiKey: apiKey } } }),
      ),
    [apiKey],
  );
  const [chosen, setChosen] = useState('');
  const list = (types.data ?? []) as DataType[];
  const type = list.find((t) => t.shortCode === chosen) ?? list[0];
  return (
    <Section title="Data service">
      {types.error !== undefined && (
        <p class="error" role="alert">
          {messageOf(types.error)}
        </p>
      )}
      {types.data && list.length === 0 && <p>No data types are declared (Indexed types) in this stage.</p>}
      {type && (
        <>
          <Select
            label="Data type"
            value={type.shortCode}
            options={list.map((t) => [t.shortCode, `${t.name} (${t.shortCode})`] as [string, string])}
            onInput={setChosen}
          />
          <TypeView key={type.shortCode} apiKey={apiKey} type={type} />
        </>
      )}
    </Section>
  );
}

function TypeView({ apiKey, type }: { apiKey: string; type: DataType }) {
  const write = useCan()('nosql.data', 2);
  const [busy, run] = useBusy();
  const [condition, setCondition] = useState<Condition>('AND');
  const [rules, setRules] = useState<Rule[]>([]);
  const [sort, setSort] = useState('');
  const [asc, setAsc] = useState(true);
  const [page, setPage] = useState<{ items: Item[]; offset: number; next: number | null }>();
  const [id, setId] = useState('');
  const [data, setData] = useState('');
  const [ttl, setTtl] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const kindOf = (field: string) => type.fields.find((f) => f.name === field)?.type ?? 'string';
  const ruleValue = (r: Rule): unknown => {
    const one = (v: string) => (kindOf(r.field) === 'number' ? Number(v) : v);
    return r.operator === 'IN' ? r.value.split(',').map((v) => one(v.trim())) : one(r.value);
  };
  const body = (offset: number) => ({
    ...(rules.length
      ? {
          query: {
            condition,
            rules: rules.map((r) => ({ field: r.field, operator: r.operator, value: ruleValue(r) })),
          },
        }
      : {}),
    ...(sort ? { sort, asc } : {}),
    offset,
    limit: 20,
  });
  const act = (work: () => Promise<void>) => {
    setError('');
    setStatus('');
    void run(work).catch((e) => setError(messageOf(e)));
  };
  const params = { params: { path: { gameApiKey: apiKey, type: type.shortCode } } };
  const itemPath = { params: { path: { gameApiKey: apiKey, type: type.shortCode, itemId: id } } };
  const query = (offset: number) =>
    act(async () => {
      const r = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/data/{type}/query', { ...params, body: body(offset) }),
      );
      setPage({ items: r.items as Item[], offset, next: r.nextOffset });
    });
  const get = () =>
    act(async () => {
      const item = await onStage(apiKey, (s) =>
        s.GET('/restv2/game/{gameApiKey}/data/{type}/{itemId}', itemPath),
      );
      setData(JSON.stringify(item.data, null, 2));
      setStatus(`Item ${id}: version ${item.version}`);
    });
  const put = () =>
    act(async () => {
      const item = await onStage(apiKey, (s) =>
        s.PUT('/restv2/game/{gameApiKey}/data/{type}/{itemId}', {
          ...itemPath,
          body: { data: parsed(data) ?? {}, ...(ttl ? { ttl: Number(ttl) } : {}) },
        }),
      );
      setStatus(`Saved ${id}: version ${item.version}`);
    });
  const remove = () => {
    if (!confirmed(`Delete the item ${id} of ${type.shortCode}?`)) return;
    act(async () => {
      await onStage(apiKey, (s) => s.DELETE('/restv2/game/{gameApiKey}/data/{type}/{itemId}', itemPath));
      setStatus(`Deleted ${id}`);
    });
  };
  const removeAll = () => {
    if (!confirmed(`Delete every item of ${type.shortCode}?`)) return;
    act(async () => {
      const r = await onStage(apiKey, (s) => s.DELETE('/restv2/game/{gameApiKey}/data/{type}', params));
      setStatus(`Deleted ${r.deletedCount} items`);
      setPage(undefined);
    });
  };
  const fields = type.fields.map((f) => f.name);
  const setRule = (i: number, change: Partial<Rule>) =>
    setRules(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <>
      <fieldset>
        <legend>Query builder</legend>
        <Select
          label="Condition"
          value={condition}
          options={['AND', 'OR', 'NOT']}
          onInput={(v) => setCondition(v as Condition)}
        />
        {rules.map((r, i) => (
          <fieldset class="row" key={i}>
            <legend class="sr-only">Rule {i + 1}</legend>
            <Select
              label={`Rule ${i + 1} field`}
              value={r.field}
              options={fields}
              onInput={(v) => setRule(i, { field: v })}
            />
            <Select
              label={`Rule ${i + 1} operator`}
              value={r.operator}
              options={OPERATORS}
              onInput={(v) => setRule(i, { operator: v })}
            />
            <Field
              label={`Rule ${i + 1} value`}
              value={r.value}
              onInput={(v) => setRule(i, { value: v })}
              hint={r.operator === 'IN' ? 'Comma-separated' : kindOf(r.field)}
            />
            <button type="button" class="secondary" onClick={() => setRules(rules.filter((_, j) => j !== i))}>
              Remove rule {i + 1}
            </button>
          </fieldset>
        ))}
        <div class="buttons">
          <button
            type="button"
            class="secondary"
            disabled={fields.length === 0}
            onClick={() => setRules([...rules, { field: fields[0] ?? '', operator: 'EQ', value: '' }])}
          >
            Add rule
          </button>
        </div>
        <div class="row">
          <Select label="Sort by" value={sort} options={[['', '(item id)'], ...fields]} onInput={setSort} />
          <label class="check">
            <input
              type="checkbox"
              checked={asc}
              onChange={(e) => setAsc((e.target as HTMLInputElement).checked)}
            />
            Ascending
          </label>
        </div>
        <details>
          <summary>JSON</summary>
          <pre>{JSON.stringify(body(0), null, 2)}</pre>
        </details>
        <button type="button" disabled={busy} onClick={() => query(0)}>
          Query items
        </button>
      </fieldset>
      {page && (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Version</th>
                <th scope="col">Expires</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((it) => (
                <tr key={it.id}>
                  <td>
                    <button
                      type="button"
                      class="link"
                      onClick={() => {
                        setId(it.id);
                        setData(JSON.stringify(it.data, null, 2));
                      }}
                    >
                      {it.id}
                    </button>
                  </td>
                  <td>{it.version}</td>
                  <td>{it.expiresAt ?? 'never'}</td>
                  <td>{compact(it.data)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="buttons">
            <button
              type="button"
              class="secondary"
              disabled={page.offset === 0}
              onClick={() => query(Math.max(0, page.offset - 20))}
            >
              Previous items
            </button>
            <button
              type="button"
              class="secondary"
              disabled={page.next === null}
              onClick={() => page.next !== null && query(page.next)}
            >
              Next items
            </button>
          </div>
        </>
      )}
      <fieldset>
        <legend>One item</legend>
        <Field label="Item id" value={id} onInput={setId} />
        <JsonField label="Item data" value={data} onInput={setData} rows={4} />
        <Field label="TTL (seconds)" type="number" value={ttl} onInput={setTtl} hint="Blank: no expiry" />
        <div class="buttons">
          <button type="button" class="secondary" disabled={busy || !id} onClick={get}>
            Get item
          </button>
          {write && (
            <>
              <button
                type="button"
                disabled={busy || !id || !!jsonProblem(data, 'object', true)}
                onClick={put}
              >
                Put item
              </button>
              <button type="button" class="danger" disabled={busy || !id} onClick={remove}>
                Delete item
              </button>
              <button type="button" class="danger" disabled={busy} onClick={removeAll}>
                Delete all items
              </button>
            </>
          )}
        </div>
      </fieldset>
      <p class="status" role="status">
        {status}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
