// Small shared pieces: labelled fields that show the API's error for their field, error summaries, copy buttons.

import { PlaybaseApiError } from 'playbase/client';
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';

interface Detail {
  field: string;
  message: string;
}

/** The API error's details, by field path without the `body.` prefix (`shortCode`, `~attributes.0.dataType`). */
export function detailsOf(error: unknown): Detail[] {
  if (!(error instanceof PlaybaseApiError) || !Array.isArray(error.details)) return [];
  return (error.details as Detail[])
    .filter((d) => d && typeof d.field === 'string')
    .map((d) => ({ field: d.field.replace(/^body\.?/, ''), message: String(d.message) }));
}

export function messageOf(error: unknown): string {
  if (error instanceof PlaybaseApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** What a form knows about its last failure: the message, and which fields it named. */
export class FormError {
  constructor(
    readonly error: unknown,
    private readonly fields: string[],
  ) {}
  /** The message for `field`: a detail naming it, else one ending in it that no other field of the form names. */
  at(field: string): string | undefined {
    const details = detailsOf(this.error);
    return (
      details.find((d) => d.field === field) ??
      details.find((d) => d.field.endsWith(`.${field}`) && !this.fields.includes(d.field))
    )?.message;
  }
  /** Details that name no field of the form: shown at the top. */
  unplaced(): Detail[] {
    return detailsOf(this.error).filter(
      (d) => !this.fields.some((f) => d.field === f || d.field.endsWith(`.${f}`)),
    );
  }
}

let nextId = 0;
const useId = () => useState(() => `f${++nextId}`)[0];

interface FieldProps {
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  hint?: string;
}

export function Field(p: FieldProps) {
  const id = useId();
  const described = [p.error ? `${id}-error` : '', p.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        type={(p.type ?? 'text') as 'text'}
        value={p.value}
        required={p.required}
        autoComplete={p.autoComplete}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={described || undefined}
        onInput={(e) => p.onInput((e.target as HTMLInputElement).value)}
      />
      {p.hint && (
        <small id={`${id}-hint`} class="hint">
          {p.hint}
        </small>
      )}
      {p.error && (
        <span id={`${id}-error`} class="field-error" role="alert">
          {p.error}
        </span>
      )}
    </div>
  );
}

interface SelectProps {
  label: string;
  value: string;
  options: readonly (string | [string, string])[];
  onInput: (value: string) => void;
  error?: string | undefined;
}

export function Select(p: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select
        id={id}
        value={p.value}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={p.error ? `${id}-error` : undefined}
        onInput={(e) => p.onInput((e.target as HTMLSelectElement).value)}
      >
        {p.options.map((o) => {
          const [value, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
      {p.error && (
        <span id={`${id}-error`} class="field-error" role="alert">
          {p.error}
        </span>
      )}
    </div>
  );
}

/** The failure of a form: its message and the details no field shows. */
export function ErrorSummary({ failure }: { failure: FormError | undefined }) {
  if (!failure) return null;
  return (
    <div class="error" role="alert">
      <p>{messageOf(failure.error)}</p>
      {failure.unplaced().length > 0 && (
        <ul>
          {failure.unplaced().map((d) => (
            <li key={d.field}>
              {d.field}: {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('Copied');
    } catch {
      setState('Copy failed: select the text and copy it');
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={copy} aria-label={`Copy ${label}`}>
        Copy
      </button>
      <span class="status" role="status">
        {state}
      </span>
    </>
  );
}

/** Runs `work` with the button disabled and a "Working…" status while it runs. */
export function useBusy(): [boolean, <T>(work: () => Promise<T>) => Promise<T | undefined>] {
  const [busy, setBusy] = useState(false);
  const run = async <T,>(work: () => Promise<T>) => {
    setBusy(true);
    try {
      return await work();
    } finally {
      setBusy(false);
    }
  };
  return [busy, run];
}

export function Section(p: { title: string; children: ComponentChildren; actions?: JSX.Element }) {
  return (
    <section class="panel" aria-label={p.title}>
      <div class="panel-head">
        <h2>{p.title}</h2>
        {p.actions}
      </div>
      {p.children}
    </section>
  );
}

/** Asks before a destructive action. */
export const confirmed = (question: string) => window.confirm(question);

export function matches(query: string, ...texts: (string | undefined)[]): boolean {
  const q = query.trim().toLowerCase();
  return !q || texts.some((t) => t?.toLowerCase().includes(q));
}

export function Search(p: { value: string; onInput: (v: string) => void; label: string }) {
  return <Field label={p.label} type="search" value={p.value} onInput={p.onInput} />;
}

/** Hands the browser a file to save (a download made in the page). */
export function saveFile(name: string, content: Blob): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(content);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** Previous and next page of a list that can grow, with where the reader is. */
export function Pager(p: { page: number; hasNext: boolean; onPage: (page: number) => void; what: string }) {
  return (
    <nav class="buttons" aria-label={`Pages of ${p.what}`}>
      <button type="button" class="secondary" disabled={p.page <= 1} onClick={() => p.onPage(p.page - 1)}>
        Previous page
      </button>
      <span>Page {p.page}</span>
      <button type="button" class="secondary" disabled={!p.hasNext} onClick={() => p.onPage(p.page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** A failure to show where it happened (nothing when there is none). */
export function Alert({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}
