// Editors of a screen (markup on the left, the rendered screen on the right, live) and of a snippet (script,
// test input, template, the scriptData result; "Save and run" runs the saved script, the preview re-renders the
// template from the scriptData as either changes, without running the script again).
import type { Stage } from 'playbase/client';
import { useMemo, useState } from 'preact/hooks';
import { TextArea } from '../textarea.js';
import { ErrorSummary, Field, FormError, useBusy } from '../ui.js';
import { type Me, mayUse, runSnippet, saveItem, type Trace } from './api.js';
import type { ScreenItem, SnippetItem } from './bundle.js';
import { ScreenView, SnippetPreview } from './screen-view.js';

const groupsText = (g: string[]) => g.join(', ');
const parseGroups = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

interface Common {
  apiKey: string;
  stage: Stage;
  me: Me | undefined;
  snippets: ReadonlyMap<string, SnippetItem>;
  onDone: () => void;
}

function Head(p: { isNew: boolean; item: ScreenItem; set: (i: ScreenItem) => void; failure?: FormError }) {
  return (
    <>
      {p.isNew && (
        <Field
          label="Short code"
          value={p.item.shortCode}
          error={p.failure?.at('shortCode')}
          onInput={(shortCode) => p.set({ ...p.item, shortCode })}
        />
      )}
      <Field
        label="Name"
        value={p.item.name}
        error={p.failure?.at('name')}
        onInput={(name) => p.set({ ...p.item, name })}
      />
      <Field
        label="Groups"
        hint="Comma-separated group names; none: every collaborator"
        value={groupsText(p.item.groups)}
        onInput={(g) => p.set({ ...p.item, groups: parseGroups(g) })}
      />
    </>
  );
}

export function ScreenEditor(p: Common & { screen: ScreenItem; isNew: boolean }) {
  const [item, setItem] = useState(p.screen);
  const [failure, setFailure] = useState<FormError>();
  const [busy, work] = useBusy();
  const save = () =>
    work(async () => {
      try {
        await saveItem(p.apiKey, 'screens', item, p.isNew);
        p.onDone();
      } catch (e) {
        setFailure(new FormError(e, ['shortCode', 'name', 'template', 'groups']));
      }
    });
  return (
    <section class="panel" aria-label="Screen editor">
      <h2>{p.isNew ? 'New screen' : `Edit screen ${item.shortCode}`}</h2>
      <ErrorSummary failure={failure} />
      <div class="split">
        <div>
          <Head isNew={p.isNew} item={item} set={setItem} failure={failure} />
          <TextArea
            label="Screen markup (HTML and GSML)"
            rows={18}
            value={item.template}
            onInput={(template) => setItem({ ...item, template })}
          />
          <button type="button" disabled={busy} onClick={save}>
            Save screen
          </button>{' '}
          <button type="button" class="secondary" onClick={p.onDone}>
            Cancel
          </button>
        </div>
        <section class="preview" aria-label="Screen preview">
          <h3>Preview</h3>
          <ScreenView
            html={item.template}
            snippets={p.snippets}
            scope="preview"
            allowed={(s) => mayUse(p.me, s)}
            run={(code, data) => runSnippet(p.apiKey, p.stage, code, data)}
          />
        </section>
      </div>
    </section>
  );
}

export function SnippetEditor(p: Common & { snippet: SnippetItem; isNew: boolean }) {
  const [item, setItem] = useState(p.snippet);
  const [input, setInput] = useState(JSON.stringify(p.snippet.scriptData ?? {}, null, 2));
  const [result, setResult] = useState('{}');
  const [trace, setTrace] = useState<Trace[]>([]);
  const [status, setStatus] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [busy, work] = useBusy();
  const [saved, setSaved] = useState(false);
  const parsed = useMemo(() => {
    try {
      return { data: JSON.parse(result) as unknown };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [result]);
  const save = async (): Promise<SnippetItem | undefined> => {
    setFailure(undefined);
    let scriptData: Record<string, unknown>;
    try {
      scriptData = JSON.parse(input || '{}');
    } catch (e) {
      setStatus(`Test input is not JSON: ${(e as Error).message}`);
      return undefined;
    }
    const next = { ...item, scriptData };
    try {
      await saveItem(p.apiKey, 'snippets', next, p.isNew && !saved);
      setSaved(true);
      return next;
    } catch (e) {
      setFailure(new FormError(e, ['shortCode', 'name', 'template', 'groups', 'script']));
      return undefined;
    }
  };
  const saveAndRun = () =>
    work(async () => {
      const next = await save();
      if (!next) return;
      try {
        const answer = await runSnippet(
          p.apiKey,
          p.stage,
          next.shortCode,
          next.scriptData,
          p.stage === 'preview',
        );
        setResult(JSON.stringify(answer.scriptData, null, 2));
        setTrace(answer.trace ?? []);
        setStatus(
          answer.error
            ? `Script failed: ${answer.scriptErrorMessage ?? JSON.stringify(answer.error)}`
            : 'Saved and ran',
        );
      } catch (e) {
        setStatus((e as Error).message);
      }
    });
  return (
    <section class="panel" aria-label="Snippet editor">
      <h2>{p.isNew ? 'New snippet' : `Edit snippet ${item.shortCode}`}</h2>
      <ErrorSummary failure={failure} />
      <div class="split">
        <div>
          <Head isNew={p.isNew} item={item} set={(i) => setItem({ ...item, ...i })} failure={failure} />
          <TextArea
            label="Script (Cloud Code)"
            value={item.script}
            onInput={(script) => setItem({ ...item, script })}
          />
          <TextArea label="Test input (scriptData, JSON)" rows={4} value={input} onInput={setInput} />
          <TextArea
            label="Template (Handlebars and GSML)"
            value={item.template}
            onInput={(template) => setItem({ ...item, template })}
          />
          <button type="button" disabled={busy} onClick={saveAndRun}>
            Save and run
          </button>{' '}
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => work(async () => (await save()) && p.onDone())}
          >
            Save and close
          </button>{' '}
          <button type="button" class="secondary" onClick={p.onDone}>
            Cancel
          </button>
          <p role="status">{status}</p>
        </div>
        <div class="preview">
          <TextArea label="Result scriptData (JSON, editable)" rows={8} value={result} onInput={setResult} />
          {parsed.error && <p class="error">Result is not JSON: {parsed.error}</p>}
          <section aria-label="Snippet preview">
            <h3>Preview</h3>
            <SnippetPreview template={item.template} scriptData={parsed.data ?? {}} scope="snippet-preview" />
          </section>
          {trace.length > 0 && (
            <section aria-label="Trace">
              <h3>Trace</h3>
              <ul>
                {trace.flatMap((t) =>
                  t.logs.map((l, i) => (
                    <li key={`${t.script}-${i}`}>
                      {t.script} {l.level}: <code>{JSON.stringify(l.log)}</code>
                    </li>
                  )),
                )}
              </ul>
            </section>
          )}
        </div>
      </div>
    </section>
  );
}
