// Cloud Code: the scripts as a folder tree (event, request, response, system, callbacks, modules), one script open
// in the editor, saved to the working copy (what Preview runs) with the server's syntax error marked at its line;
// a new script, a deleted one; the scripts as a zip (export) and a zip's import, file by file (cloud-code-import).
import { useEffect, useRef, useState } from 'preact/hooks';
import { mountEditor, type ScriptEditor } from '../cloud-code/editor.js';
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
  saveFile,
  useBusy,
} from '../ui.js';
import { ImportScripts } from './cloud-code-import.js';

export const FOLDERS = ['event', 'request', 'response', 'system', 'callbacks', 'modules'] as const;
export type Folder = (typeof FOLDERS)[number];
export interface ScriptName {
  folder: Folder;
  shortCode: string;
}
const nameOf = (s: ScriptName) => `${s.folder}/${s.shortCode}`;

const TEMPLATE: Record<Folder, string> = {
  event: '// Runs when a player logs this event.\nvar player = Spark.getPlayer();\n',
  request: '// Runs before the request is handled.\nvar data = Spark.getData();\n',
  response: '// Runs before the answer is sent.\nvar data = Spark.getData();\n',
  system: '// Runs on its schedule or system event.\n',
  callbacks: '// Answers an HTTP callback of this credential.\nvar params = Spark.getData();\n',
  modules: '// A module: require("NAME") or requireOnce("NAME") runs it in the calling script.\n',
};

export function CloudCodePage({ apiKey }: { apiKey: string }) {
  const canWrite = useCan()('configurator.cloudCode', 2);
  const list = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~scripts', { params: { path: { apiKey } } })),
    [apiKey],
  );
  const [open, setOpenNow] = useState<ScriptName>();
  // The open script has edits not saved: opening another asks first.
  const unsaved = useRef(false);
  const setOpen = (s: ScriptName | undefined) => {
    if (unsaved.current && !confirmed('Leave this script? Its changes are not saved.')) return;
    unsaved.current = false;
    setOpenNow(s);
  };
  const [query, setQuery] = useState('');
  const [busy, run] = useBusy();
  const [error, setError] = useState('');
  const scripts = (list.data ?? []) as (ScriptName & { size: number })[];
  const exportZip = () => {
    setError('');
    void run(() =>
      call((c) =>
        c.api.GET('/restv2/game/{apiKey}/config/~scripts/export', {
          params: { path: { apiKey } },
          parseAs: 'blob',
        }),
      ),
    )
      .then((zip) => zip && saveFile(`playbase-scripts-${apiKey}.zip`, zip as unknown as Blob))
      .catch((e) => setError(messageOf(e)));
  };
  return (
    <>
      <h1>Cloud Code</h1>
      <p>Saving changes the working copy, which Preview runs; publish a snapshot to run it on Live.</p>
      <div class="code-layout">
        <nav class="script-tree" aria-label="Scripts">
          <Search label="Search scripts" value={query} onInput={setQuery} />
          {list.error !== undefined && <p class="error">{messageOf(list.error)}</p>}
          {FOLDERS.map((folder) => {
            const inFolder = scripts.filter((s) => s.folder === folder && matches(query, s.shortCode));
            return (
              <div key={folder} class="folder">
                <h2 class="folder-name">{folder}</h2>
                {inFolder.length === 0 ? (
                  <p class="hint">No script</p>
                ) : (
                  <ul>
                    {inFolder.map((s) => (
                      <li key={s.shortCode}>
                        <button
                          type="button"
                          class="link"
                          aria-label={`${folder}/${s.shortCode}`}
                          aria-current={open && nameOf(open) === nameOf(s) ? 'true' : undefined}
                          onClick={() => setOpen({ folder: s.folder, shortCode: s.shortCode })}
                        >
                          {s.shortCode}
                        </button>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            );
          })}
        </nav>
        <div class="code-main">
          {open ? (
            <ScriptPanel
              key={nameOf(open)}
              apiKey={apiKey}
              script={open}
              canWrite={canWrite}
              onDirty={(dirty) => {
                unsaved.current = dirty;
              }}
              onSaved={() => void list.reload()}
              onDeleted={() => {
                unsaved.current = false;
                setOpen(undefined);
                void list.reload();
              }}
            />
          ) : (
            <p>Choose a script in the tree{canWrite ? ', or create one' : ''}.</p>
          )}
          {canWrite && (
            <NewScript
              apiKey={apiKey}
              onCreated={(s) => {
                setOpen(s);
                void list.reload();
              }}
            />
          )}
          <Section title="Export and import">
            <p>
              All the scripts as a zip (one folder/shortCode.js per script), as the original platform exported
              them.
            </p>
            <button type="button" class="secondary" onClick={exportZip} disabled={busy}>
              Download scripts (zip)
            </button>
            <Alert text={error} />
            {canWrite && <ImportScripts apiKey={apiKey} onImported={() => void list.reload()} />}
          </Section>
        </div>
      </div>
    </>
  );
}

function ScriptPanel(p: {
  apiKey: string;
  script: ScriptName;
  canWrite: boolean;
  onDirty: (dirty: boolean) => void;
  onSaved: () => void;
  onDeleted: () => void;
}) {
  const params = { params: { path: { apiKey: p.apiKey, ...p.script } } };
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<ScriptEditor | undefined>(undefined);
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [busy, run] = useBusy();
  const loaded = useLoad(
    () => call((c) => c.api.GET('/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}', params)),
    [],
  );
  const source = loaded.data?.script;
  useEffect(() => {
    if (source === undefined || !host.current) return;
    editor.current = mountEditor(
      host.current,
      source,
      `Source of ${nameOf(p.script)}`,
      () => {
        setDirty(true);
        p.onDirty(true);
        setStatus('');
      },
      !p.canWrite,
    );
    return () => editor.current?.destroy();
  }, [source]);
  const save = () => {
    const script = editor.current?.text() ?? '';
    setError('');
    editor.current?.clearError();
    void run(() =>
      call((c) =>
        c.api.PUT('/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}', {
          ...params,
          body: { script },
        }),
      ),
    )
      .then(() => {
        setDirty(false);
        p.onDirty(false);
        setStatus('Saved to the working copy (Preview).');
        p.onSaved();
      })
      .catch((e) => {
        const at = (e as { details?: { line?: number; column?: number; message?: string }[] }).details?.find(
          (d) => typeof d.line === 'number',
        );
        if (at?.line) {
          editor.current?.markError(at.line, at.column ?? 1, at.message ?? '');
          setError(`Line ${at.line}, column ${at.column ?? 1}: ${at.message}`);
        } else setError(messageOf(e));
      });
  };
  const remove = () => {
    if (!confirmed(`Delete the script ${nameOf(p.script)}?`)) return;
    setError('');
    void run(() =>
      call((c) => c.api.DELETE('/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}', params)),
    )
      .then(p.onDeleted)
      .catch((e) => setError(messageOf(e)));
  };
  return (
    <Section
      title={nameOf(p.script)}
      actions={
        p.canWrite ? (
          <div class="buttons">
            <button type="button" onClick={save} disabled={busy || source === undefined}>
              Save
            </button>
            <button type="button" class="danger" onClick={remove} disabled={busy}>
              Delete script
            </button>
          </div>
        ) : (
          <span>Read only</span>
        )
      }
    >
      {loaded.error !== undefined && <p class="error">{messageOf(loaded.error)}</p>}
      <Alert text={error} />
      <p role="status" aria-live="polite">
        {dirty ? 'Unsaved changes' : status}
      </p>
      <div class="editor" ref={host} />
      <p class="hint">Ctrl-Space completes the Spark API (Spark., Spark.getPlayer(). …).</p>
    </Section>
  );
}

function NewScript(p: { apiKey: string; onCreated: (s: ScriptName) => void }) {
  const [folder, setFolder] = useState<Folder>('event');
  const [shortCode, setShortCode] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [busy, run] = useBusy();
  const create = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    const script = { folder, shortCode };
    void run(() =>
      call((c) =>
        c.api.PUT('/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}', {
          params: { path: { apiKey: p.apiKey, ...script } },
          body: { script: TEMPLATE[folder] },
        }),
      ),
    )
      .then(() => {
        setShortCode('');
        p.onCreated(script);
      })
      .catch((err) => setFailure(new FormError(err, ['folder', 'shortCode'])));
  };
  return (
    <Section title="New script">
      <form onSubmit={create} class="inline-form">
        <ErrorSummary failure={failure} />
        <Select
          label="Folder"
          value={folder}
          options={FOLDERS}
          onInput={(v) => setFolder(v as Folder)}
          error={failure?.at('folder')}
        />
        <Field
          label="Short code"
          value={shortCode}
          onInput={setShortCode}
          error={failure?.at('shortCode')}
          hint="event: an event's short code; request/response: a request or response class; callbacks: a credential"
        />
        <button type="submit" disabled={busy}>
          Create script
        </button>
      </form>
    </Section>
  );
}
