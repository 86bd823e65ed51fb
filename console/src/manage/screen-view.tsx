// A Manage screen as its users see it: the screen's GSML rendered safe, its <gs-snippet>s run at once, forms and
// links running their snippet on submit or click, each snippet's template rendered with the script's scriptData
// into the placeholder its target names (or in place; target="modal…" opens a dialog). Snippets the user's groups
// do not allow are left out, as in the original (the server refuses them as well).
import { useEffect, useRef, useState } from 'preact/hooks';
import { toFragment } from './gsml.js';
import { renderTemplate } from './handlebars.js';

export interface SnippetDef {
  shortCode: string;
  name: string;
  template: string;
  groups: string[];
}

export interface RunAnswer {
  scriptData: Record<string, unknown>;
  error?: Record<string, unknown>;
  scriptErrorId?: string;
  scriptErrorMessage?: string;
}

export interface ScreenViewProps {
  /** The screen's HTML + GSML. */
  html: string;
  snippets: ReadonlyMap<string, SnippetDef>;
  /** Runs a snippet's script on the server (the run route). */
  run: (shortCode: string, scriptData: Record<string, unknown>) => Promise<RunAnswer>;
  /** The user may see a snippet (its groups). */
  allowed: (snippet: SnippetDef) => boolean;
  /** Prefix of the ids the screen's elements get. */
  scope: string;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function notice(host: Element, text: string): void {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = text;
  host.replaceChildren(p);
}

export function ScreenView(p: ScreenViewProps) {
  const box = useRef<HTMLDivElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const modalBody = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState('');
  const props = useRef(p);
  props.current = p;

  useEffect(() => {
    const root = box.current;
    if (!root) return;
    let alive = true;
    const placeholder = (from: Element, target: string | undefined): Element | undefined => {
      if (!target) return undefined;
      if (target.startsWith('modal')) {
        dialog.current?.showModal();
        return modalBody.current ?? undefined;
      }
      const found = [root, modalBody.current].flatMap((r) =>
        r ? [...r.querySelectorAll(`[data-gs-placeholder="${CSS.escape(target)}"]`)] : [],
      );
      return found[0] ?? from;
    };
    const mount = (host: Element, html: string) => {
      host.replaceChildren(toFragment(html, props.current.scope));
      for (const el of host.querySelectorAll<HTMLElement>('[data-gs-run="mount"]')) {
        el.removeAttribute('data-gs-run');
        void runInto(el.dataset.gsSnippet ?? '', {}, placeholder(el, el.dataset.gsTarget) ?? el);
      }
    };
    const runInto = async (spec: string, fields: Record<string, unknown>, host: Element) => {
      const [code = '', query = ''] = spec.split('?');
      const snippet = props.current.snippets.get(code);
      if (!snippet) return notice(host, `No snippet ${code}`);
      if (!props.current.allowed(snippet)) return host.replaceChildren();
      const input = { ...Object.fromEntries(new URLSearchParams(query)), ...fields };
      host.setAttribute('aria-busy', 'true');
      try {
        const answer = await props.current.run(code, input);
        if (!alive) return;
        if (answer.error) {
          const why = answer.scriptErrorMessage ?? JSON.stringify(answer.error);
          notice(
            host,
            `Snippet ${code} failed: ${why}${answer.scriptErrorId ? ` (log ${answer.scriptErrorId})` : ''}`,
          );
        } else {
          mount(host, renderTemplate(snippet.template, answer.scriptData));
        }
      } catch (e) {
        if (alive) notice(host, `Snippet ${code}: ${message(e)}`);
      } finally {
        host.removeAttribute('aria-busy');
      }
    };
    const onSubmit = (e: Event) => {
      const form = e.target as HTMLFormElement;
      if (!form.dataset.gsSnippet && !(e as SubmitEvent).submitter?.dataset.gsSnippet) return;
      e.preventDefault();
      const by = (e as SubmitEvent).submitter as HTMLElement | null;
      const spec = by?.dataset.gsSnippet ?? form.dataset.gsSnippet ?? '';
      const target = by?.dataset.gsTarget ?? form.dataset.gsTarget;
      const fields: Record<string, unknown> = {};
      for (const [k, v] of new FormData(form)) fields[k] = typeof v === 'string' ? v : v.name;
      void runInto(spec, fields, placeholder(form, target) ?? form);
    };
    const onClick = (e: Event) => {
      const el = (e.target as Element).closest<HTMLElement>('[data-gs-snippet], [data-gs-modal-close]');
      if (!el || el.tagName === 'FORM' || (el as HTMLButtonElement).type === 'submit') return;
      if (el.dataset.gsModalClose !== undefined) return dialog.current?.close();
      if (el.classList.contains('gs-link')) {
        void runInto(el.dataset.gsSnippet ?? '', {}, placeholder(el, el.dataset.gsTarget) ?? el);
      }
    };
    const roots = [root, modalBody.current].filter((r): r is HTMLDivElement => !!r);
    for (const r of roots) {
      r.addEventListener('submit', onSubmit);
      r.addEventListener('click', onClick);
    }
    try {
      mount(root, p.html);
      setFailure('');
    } catch (e) {
      setFailure(message(e));
    }
    return () => {
      alive = false;
      for (const r of roots) {
        r.removeEventListener('submit', onSubmit);
        r.removeEventListener('click', onClick);
      }
    };
  }, [p.html, p.scope]);

  return (
    <div class="gs-screen">
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      <div ref={box} />
      <dialog ref={dialog} aria-label="Snippet">
        <div ref={modalBody} />
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </dialog>
    </div>
  );
}

/** The rendered template of a snippet from scriptData, without running it (the editor's "render only"). */
export function SnippetPreview(p: { template: string; scriptData: unknown; scope: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState('');
  useEffect(() => {
    try {
      box.current?.replaceChildren(toFragment(renderTemplate(p.template, p.scriptData), p.scope));
      setFailure('');
    } catch (e) {
      setFailure(message(e));
    }
  }, [p.template, p.scriptData, p.scope]);
  return (
    <div class="gs-screen">
      {failure && <p class="error">{failure}</p>}
      <div ref={box} />
    </div>
  );
}
