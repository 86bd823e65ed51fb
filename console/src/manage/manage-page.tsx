// The Manage section: the game's screens (those the user's groups allow) opened as their users see them on the
// stage of the switch, their snippets, an editor for each, import of the original's export file, and the
// screen library. Loaded on demand (handlebars' parser and DOMPurify are in this chunk only).
import type { Stage } from 'playbase/client';
import { useMemo, useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { TextArea } from '../textarea.js';
import { confirmed, messageOf, Section, Select, useBusy } from '../ui.js';
import { deleteItem, listScreens, listSnippets, mayUse, runSnippet, whoAmI } from './api.js';
import { installBundle, readBundle, type ScreenItem, type SnippetItem } from './bundle.js';
import { ScreenEditor, SnippetEditor } from './editor.js';
import { LIBRARY } from './library.js';
import { ScreenView } from './screen-view.js';

type View =
  | { kind: 'list' }
  | { kind: 'screen'; shortCode: string }
  | { kind: 'edit-screen'; item: ScreenItem; isNew: boolean }
  | { kind: 'edit-snippet'; item: SnippetItem; isNew: boolean };

const NEW_SCREEN: ScreenItem = { shortCode: '', name: '', template: '', groups: [] };
const NEW_SNIPPET: SnippetItem = { ...NEW_SCREEN, script: '', scriptData: {} };

export default function ManagePage({ apiKey }: { apiKey: string }) {
  const can = useCan();
  const [stage, setStage] = useState<Stage>('preview');
  const [view, setView] = useState<View>({ kind: 'list' });
  const screens = useLoad(() => listScreens(apiKey), [apiKey]);
  const snippets = useLoad(() => listSnippets(apiKey), [apiKey]);
  const me = useLoad(() => whoAmI(apiKey), [apiKey]);
  const byCode = useMemo(() => new Map((snippets.data ?? []).map((s) => [s.shortCode, s])), [snippets.data]);
  const writeScreens = can('manage.screens', 2);
  const writeSnippets = can('manage.snippets', 2);
  const back = () => {
    setView({ kind: 'list' });
    void screens.reload();
    void snippets.reload();
  };
  const common = { apiKey, stage, me: me.data, snippets: byCode, onDone: back };

  const stageSwitch = (
    <Select
      label="Stage"
      value={stage}
      options={[
        ['preview', 'Preview'],
        ['live', 'Live'],
      ]}
      onInput={(v) => setStage(v as Stage)}
    />
  );

  if (view.kind === 'edit-screen') return <ScreenEditor {...common} screen={view.item} isNew={view.isNew} />;
  if (view.kind === 'edit-snippet')
    return <SnippetEditor {...common} snippet={view.item} isNew={view.isNew} />;
  if (view.kind === 'screen') {
    const screen = screens.data?.find((s) => s.shortCode === view.shortCode);
    return (
      <>
        <h1>{screen?.name ?? view.shortCode}</h1>
        <p>
          <button type="button" class="secondary" onClick={back}>
            Back to screens
          </button>
        </p>
        {stageSwitch}
        {screen && (
          <ScreenView
            key={`${screen.shortCode}-${stage}`}
            html={screen.template}
            snippets={byCode}
            scope={`screen-${screen.shortCode}`}
            allowed={(s) => mayUse(me.data, s)}
            run={(code, data) => runSnippet(apiKey, stage, code, data)}
          />
        )}
      </>
    );
  }

  const visible = (screens.data ?? []).filter((s) => mayUse(me.data, s));
  return (
    <>
      <h1>Manage screens</h1>
      {stageSwitch}
      <Section
        title="Screens"
        actions={
          writeScreens ? (
            <button
              type="button"
              onClick={() => setView({ kind: 'edit-screen', item: NEW_SCREEN, isNew: true })}
            >
              New screen
            </button>
          ) : undefined
        }
      >
        {screens.error !== undefined && <p class="error">{messageOf(screens.error)}</p>}
        {screens.data && visible.length === 0 && (
          <p>No screens yet: import a file or install one from the library.</p>
        )}
        <ItemTable
          items={visible}
          open={(s) => setView({ kind: 'screen', shortCode: s.shortCode })}
          edit={writeScreens ? (s) => setView({ kind: 'edit-screen', item: s, isNew: false }) : undefined}
          remove={
            writeScreens
              ? async (s) => {
                  await deleteItem(apiKey, 'screens', s.shortCode);
                  await screens.reload();
                }
              : undefined
          }
        />
      </Section>
      <Section
        title="Snippets"
        actions={
          writeSnippets ? (
            <button
              type="button"
              onClick={() => setView({ kind: 'edit-snippet', item: NEW_SNIPPET, isNew: true })}
            >
              New snippet
            </button>
          ) : undefined
        }
      >
        {snippets.error !== undefined && <p class="error">{messageOf(snippets.error)}</p>}
        <ItemTable
          items={snippets.data ?? []}
          edit={writeSnippets ? (s) => setView({ kind: 'edit-snippet', item: s, isNew: false }) : undefined}
          remove={
            writeSnippets
              ? async (s) => {
                  await deleteItem(apiKey, 'snippets', s.shortCode);
                  await snippets.reload();
                }
              : undefined
          }
        />
      </Section>
      {writeScreens && writeSnippets && <Import apiKey={apiKey} onDone={back} />}
    </>
  );
}

function ItemTable<T extends ScreenItem>(p: {
  items: T[];
  open?: (item: T) => void;
  edit?: ((item: T) => void) | undefined;
  remove?: ((item: T) => Promise<void>) | undefined;
}) {
  const [error, setError] = useState('');
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Short code</th>
            <th scope="col">Name</th>
            <th scope="col">Groups</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {p.items.map((i) => (
            <tr key={i.shortCode}>
              <td>
                <code>{i.shortCode}</code>
              </td>
              <td>{i.name}</td>
              <td>{i.groups.join(', ') || 'everyone'}</td>
              <td class="actions">
                {p.open && (
                  <button type="button" onClick={() => p.open?.(i)}>
                    Open <span class="sr-only">{i.name}</span>
                  </button>
                )}
                {p.edit && (
                  <button type="button" class="secondary" onClick={() => p.edit?.(i)}>
                    Edit <span class="sr-only">{i.shortCode}</span>
                  </button>
                )}
                {p.remove && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      if (!confirmed(`Delete ${i.shortCode}?`)) return;
                      p.remove?.(i).catch((e) => setError(messageOf(e)));
                    }}
                  >
                    Delete <span class="sr-only">{i.shortCode}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Import({ apiKey, onDone }: { apiKey: string; onDone: () => void }) {
  const [text, setText] = useState('');
  const [status, setStatus] = useState('');
  const [busy, work] = useBusy();
  const install = (json: unknown, what: string) =>
    work(async () => {
      try {
        setStatus(`${what}: ${await installBundle(apiKey, readBundle(json))}`);
        onDone();
      } catch (e) {
        setStatus(`${what} failed: ${messageOf(e)}`);
      }
    });
  const fromText = () => {
    try {
      void install(JSON.parse(text), 'Import');
    } catch (e) {
      setStatus(`Import failed: not JSON (${(e as Error).message})`);
    }
  };
  const fromFile = async (file: File | undefined) => {
    if (file) setText(await file.text());
  };
  return (
    <>
      <Section title="Import">
        <p>
          An export file of the original portal (<code>{'{screens, snippets, queries}'}</code> keyed by short
          code) or of Playbase. Items with a short code that exists are replaced.
        </p>
        <div class="field">
          <label for="manage-import-file">Export file</label>
          <input
            id="manage-import-file"
            type="file"
            accept="application/json,.json"
            onChange={(e) => void fromFile((e.target as HTMLInputElement).files?.[0])}
          />
        </div>
        <TextArea label="Export file contents (JSON)" rows={6} value={text} onInput={setText} />
        <button type="button" disabled={busy || !text.trim()} onClick={fromText}>
          Import
        </button>
      </Section>
      <Section title="Screen library">
        <ul class="library">
          {LIBRARY.map((l) => (
            <li key={l.title}>
              <strong>{l.title}</strong>: {l.description}{' '}
              <button
                type="button"
                class="secondary"
                disabled={busy}
                onClick={() => install(l.bundle, l.title)}
              >
                Install {l.title}
              </button>
            </li>
          ))}
        </ul>
      </Section>
      <p role="status">{status}</p>
    </>
  );
}
