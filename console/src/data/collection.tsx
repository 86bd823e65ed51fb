// One collection of the Data Explorer: the query editors (Query, Fields, Sort, Skip, Limit) shared by Find,
// Explain, Count, Update and Remove; Insert; Aggregate; the results; and the collection's indexes and stats.
import { useState } from 'preact/hooks';
import { useCan } from '../permissions.js';
import { onStage } from '../stage.js';
import { Field, messageOf, Section, useBusy } from '../ui.js';
import { IndexesPanel } from './indexes.js';
import { Results } from './results.js';
import { JsonField, jsonProblem, parsed } from './widgets.js';

export interface Collection {
  name: string;
  optionGroup: string;
  actions: string[];
}

type Doc = Record<string, unknown>;

export function CollectionView({
  apiKey,
  c,
  onDropped,
}: {
  apiKey: string;
  c: Collection;
  onDropped: () => void;
}) {
  const can = useCan();
  const write = can('nosql', 2);
  const allows = (a: string) => c.actions.includes(a);
  const path = { params: { path: { gameApiKey: apiKey, collectionName: c.name } } };
  const [busy, run] = useBusy();
  const [query, setQuery] = useState('{}');
  const [fields, setFields] = useState('');
  const [sort, setSort] = useState('');
  const [skip, setSkip] = useState('0');
  const [limit, setLimit] = useState('20');
  const [update, setUpdate] = useState('');
  const [multi, setMulti] = useState(false);
  const [upsert, setUpsert] = useState(false);
  const [doc, setDoc] = useState('');
  const [pipeline, setPipeline] = useState('');
  const [docs, setDocs] = useState<{ docs: Doc[]; skip: number; limit: number; aggregate?: boolean }>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [explained, setExplained] = useState<{ summary: string[]; indexesUsed: string[] }>();

  const bad =
    jsonProblem(query, 'object') ?? jsonProblem(fields, 'object') ?? jsonProblem(sort, 'object') ?? undefined;
  const number = (text: string, fallback: number) => (/^\d+$/.test(text.trim()) ? Number(text) : fallback);
  const findBody = (at: number) => ({
    query: parsed(query) ?? {},
    ...(fields.trim() ? { fields: parsed(fields) } : {}),
    ...(sort.trim() ? { sort: parsed<Record<string, 1 | -1>>(sort) } : {}),
    skip: at,
    limit: number(limit, 20),
  });
  const act = (what: () => Promise<void>) => {
    setError('');
    setStatus('');
    void run(what).catch((e) => setError(messageOf(e)));
  };
  const find = (at: number) =>
    act(async () => {
      const found = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find', {
          ...path,
          body: findBody(at),
        }),
      );
      setSkip(String(at));
      setDocs({ docs: found as Doc[], skip: at, limit: number(limit, 20) });
      setStatus(`${found.length} documents shown, from ${at + 1}`);
    });
  const explain = () =>
    act(async () => {
      const plan = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/explain', {
          ...path,
          body: findBody(number(skip, 0)),
        }),
      );
      setExplained({ summary: plan.summary, indexesUsed: plan.indexesUsed });
    });
  const countMatches = () =>
    onStage(apiKey, (s) =>
      s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/count', {
        ...path,
        body: { query: parsed(query) ?? {} },
      }),
    ).then((r) => r.count);
  const count = () => act(async () => setStatus(`${await countMatches()} documents match`));
  const remove = () =>
    act(async () => {
      const n = await countMatches();
      if (!window.confirm(`Remove ${n} document${n === 1 ? '' : 's'} matching ${query.trim() || '{}'}?`))
        return;
      const r = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/remove', {
          ...path,
          body: { query: parsed(query) ?? {} },
        }),
      );
      setDocs(undefined);
      setStatus(`Removed ${r.deletedCount} documents`);
    });
  const doUpdate = () =>
    act(async () => {
      const r = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/update', {
          ...path,
          body: { query: parsed(query) ?? {}, update: parsed(update) ?? {}, multi, upsert },
        }),
      );
      setStatus(
        `Matched ${r.matchedCount}, modified ${r.modifiedCount}, upserted ${r.upsertedCount}` +
          (r.upsertedId === undefined || r.upsertedId === null ? '' : ` (${JSON.stringify(r.upsertedId)})`),
      );
    });
  const insert = () =>
    act(async () => {
      const r = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/insert', {
          ...path,
          body: parsed(doc) ?? {},
        }),
      );
      const ids = (r as Doc[]).map((d) => JSON.stringify(d._id));
      setStatus(`Inserted ${ids.length} document${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}`);
      setDoc('');
    });
  const aggregate = () =>
    act(async () => {
      const found = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/aggregate', {
          ...path,
          body: parsed<Doc[]>(pipeline) ?? [],
        }),
      );
      setDocs({ docs: found as Doc[], skip: 0, limit: found.length, aggregate: true });
      setStatus(`The pipeline gave ${found.length} documents`);
    });

  return (
    <>
      <h2>
        {c.name} <small class="badge">{c.optionGroup}</small>
      </h2>
      {(allows('FIND') || allows('COUNT')) && (
        <Section title="Find and count">
          <div class="row">
            <JsonField
              label="Query"
              value={query}
              onInput={setQuery}
              hint='Strict JSON, e.g. {"level": {"$gte": 10}}'
            />
            {allows('FIND') && (
              <>
                <JsonField label="Fields" value={fields} onInput={setFields} hint='e.g. {"userName": 1}' />
                <JsonField label="Sort" value={sort} onInput={setSort} hint='e.g. {"level": -1}' />
                <Field label="Skip" type="number" value={skip} onInput={setSkip} />
                <Field label="Limit" type="number" value={limit} onInput={setLimit} hint="At most 10000" />
              </>
            )}
          </div>
          <div class="buttons">
            {allows('FIND') && (
              <>
                <button type="button" disabled={busy || !!bad} onClick={() => find(number(skip, 0))}>
                  Find
                </button>
                <button type="button" class="secondary" disabled={busy || !!bad} onClick={explain}>
                  Explain
                </button>
              </>
            )}
            {allows('COUNT') && (
              <button type="button" class="secondary" disabled={busy || !!bad} onClick={count}>
                Count
              </button>
            )}
            {allows('REMOVE') && write && (
              <button type="button" class="danger" disabled={busy || !!bad} onClick={remove}>
                Remove matching
              </button>
            )}
          </div>
          {explained && (
            <section class="explain" aria-label="Explain">
              {explained.summary.map((sentence) => (
                <p key={sentence}>{sentence}</p>
              ))}
              <p>Indexes used: {explained.indexesUsed.length ? explained.indexesUsed.join(', ') : 'none'}</p>
            </section>
          )}
        </Section>
      )}
      <p class="status" role="status">
        {status}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {docs && (
        <Results
          apiKey={apiKey}
          c={c}
          docs={docs.docs}
          editable={write && !docs.aggregate}
          onChanged={() => (docs.aggregate ? aggregate() : find(docs.skip))}
          paging={
            docs.aggregate
              ? undefined
              : {
                  previous: docs.skip > 0 ? () => find(Math.max(0, docs.skip - docs.limit)) : undefined,
                  next: docs.docs.length === docs.limit ? () => find(docs.skip + docs.limit) : undefined,
                }
          }
        />
      )}
      {allows('UPDATE') && write && (
        <Section title="Update">
          <p class="hint">Updates what the Query above matches.</p>
          <JsonField
            label="Update"
            value={update}
            onInput={setUpdate}
            required
            hint='e.g. {"$inc": {"level": 1}}'
          />
          <label class="check">
            <input
              type="checkbox"
              checked={multi}
              onChange={(e) => setMulti((e.target as HTMLInputElement).checked)}
            />
            Multi (every match)
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={upsert}
              onChange={(e) => setUpsert((e.target as HTMLInputElement).checked)}
            />
            Upsert (insert when nothing matches)
          </label>
          <button
            type="button"
            disabled={busy || !!bad || !!jsonProblem(update, 'object', true)}
            onClick={doUpdate}
          >
            Update
          </button>
        </Section>
      )}
      {allows('INSERT') && write && (
        <Section title="Insert">
          <JsonField
            label="Document"
            value={doc}
            onInput={setDoc}
            required
            rows={4}
            hint="_id is generated when absent"
          />
          <button type="button" disabled={busy || !!jsonProblem(doc, 'documents', true)} onClick={insert}>
            Insert
          </button>
        </Section>
      )}
      {allows('AGGREGATE') && (
        <Section title="Aggregate">
          <JsonField
            label="Pipeline"
            value={pipeline}
            onInput={setPipeline}
            shape="array"
            required
            rows={3}
            hint='e.g. [{"$group": {"_id": "$country", "n": {"$sum": 1}}}]'
          />
          <button type="button" disabled={busy || !!jsonProblem(pipeline, 'array', true)} onClick={aggregate}>
            Aggregate
          </button>
        </Section>
      )}
      <IndexesPanel apiKey={apiKey} c={c} onDropped={onDropped} />
    </>
  );
}
