// Documents found: a table (top-level fields as columns) or an extended-JSON tree; each document can be edited
// in place (save) or deleted (the confirmation shows it); paging moves Skip by Limit.
import { useState } from 'preact/hooks';
import { onStage } from '../stage.js';
import { messageOf, Section, useBusy } from '../ui.js';
import type { Collection } from './collection.js';
import { compact, JsonField, JsonTree, jsonProblem, parsed } from './widgets.js';

type Doc = Record<string, unknown>;

interface ResultsProps {
  apiKey: string;
  c: Collection;
  docs: Doc[];
  editable: boolean;
  onChanged: () => void;
  paging: { previous: (() => void) | undefined; next: (() => void) | undefined } | undefined;
}

export function Results(p: ResultsProps) {
  const [view, setView] = useState<'table' | 'tree'>('table');
  const [editing, setEditing] = useState<number>();
  const columns = [...new Set(p.docs.flatMap((d) => Object.keys(d)))].slice(0, 12);
  const canEdit = p.editable && p.c.actions.includes('INSERT') && p.c.actions.includes('UPDATE');
  const canDelete = p.editable && p.c.actions.includes('REMOVE');
  const actions = (d: Doc, i: number) =>
    (canEdit || canDelete) && (
      <DocActions
        apiKey={p.apiKey}
        c={p.c}
        doc={d}
        canEdit={canEdit}
        canDelete={canDelete}
        onEdit={() => setEditing(i)}
        onChanged={p.onChanged}
      />
    );
  return (
    <Section
      title="Results"
      actions={
        <button type="button" class="secondary" onClick={() => setView(view === 'table' ? 'tree' : 'table')}>
          {view === 'table' ? 'Show as tree' : 'Show as table'}
        </button>
      }
    >
      {editing !== undefined && p.docs[editing] && (
        <EditDoc
          apiKey={p.apiKey}
          c={p.c}
          doc={p.docs[editing]}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) p.onChanged();
          }}
        />
      )}
      {p.docs.length === 0 && <p>No documents.</p>}
      {view === 'table' && p.docs.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable)
        <section class="scroll" tabIndex={0} aria-label="Documents table">
          <table>
            <thead>
              <tr>
                {columns.map((k) => (
                  <th key={k} scope="col">
                    {k}
                  </th>
                ))}
                {(canEdit || canDelete) && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {p.docs.map((d, i) => (
                <tr key={compact(d._id) || i}>
                  {columns.map((k) => (
                    <td key={k}>{compact(d[k])}</td>
                  ))}
                  {(canEdit || canDelete) && <td>{actions(d, i)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {view === 'tree' && (
        <ol class="tree">
          {p.docs.map((d, i) => (
            <li key={compact(d._id) || i}>
              <JsonTree value={d} name={compact(d._id) || `#${i + 1}`} open />
              {actions(d, i)}
            </li>
          ))}
        </ol>
      )}
      {p.paging && (
        <div class="buttons">
          <button type="button" class="secondary" disabled={!p.paging.previous} onClick={p.paging.previous}>
            Previous page
          </button>
          <button type="button" class="secondary" disabled={!p.paging.next} onClick={p.paging.next}>
            Next page
          </button>
        </div>
      )}
    </Section>
  );
}

interface DocActionsProps {
  apiKey: string;
  c: Collection;
  doc: Doc;
  canEdit: boolean;
  canDelete: boolean;
  onEdit: () => void;
  onChanged: () => void;
}

function DocActions(p: DocActionsProps) {
  const [error, setError] = useState('');
  const id = compact(p.doc._id);
  const remove = () => {
    if (!window.confirm(`Delete this document?\n${JSON.stringify(p.doc, null, 2)}`)) return;
    onStage(p.apiKey, (s) =>
      s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/remove', {
        params: { path: { gameApiKey: p.apiKey, collectionName: p.c.name } },
        body: { query: { _id: p.doc._id } },
      }),
    ).then(p.onChanged, (e) => setError(messageOf(e)));
  };
  return (
    <span class="doc-actions">
      {p.canEdit && (
        <button type="button" class="secondary" aria-label={`Edit ${id}`} onClick={p.onEdit}>
          Edit
        </button>
      )}
      {p.canDelete && (
        <button type="button" class="danger" aria-label={`Delete ${id}`} onClick={remove}>
          Delete
        </button>
      )}
      {error && (
        <span class="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

function EditDoc(p: { apiKey: string; c: Collection; doc: Doc; onDone: (saved: boolean) => void }) {
  const [text, setText] = useState(JSON.stringify(p.doc, null, 2));
  const [error, setError] = useState('');
  const [busy, run] = useBusy();
  const save = () => {
    setError('');
    void run(() =>
      onStage(p.apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/save', {
          params: { path: { gameApiKey: p.apiKey, collectionName: p.c.name } },
          body: parsed(text) ?? {},
        }),
      ),
    ).then(
      () => p.onDone(true),
      (e) => setError(messageOf(e)),
    );
  };
  return (
    <fieldset class="editor">
      <legend>Edit document {compact(p.doc._id)}</legend>
      <JsonField label="Edited document" value={text} onInput={setText} required rows={10} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="buttons">
        <button type="button" disabled={busy || !!jsonProblem(text, 'object', true)} onClick={save}>
          Save document
        </button>
        <button type="button" class="secondary" onClick={() => p.onDone(false)}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
