// Pieces of the runtime data pages: the Preview/Live switch, JSON editors that check as you type, and the
// extended-JSON tree of a document.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { stage } from '../stage.js';

let nextId = 0;
const useId = () => useState(() => `j${++nextId}`)[0];

export function StageSwitch({ onChange }: { onChange?: () => void }) {
  return (
    <fieldset class="stage-switch">
      <legend>Stage</legend>
      {(['preview', 'live'] as const).map((s) => (
        <label key={s} class="check">
          <input
            type="radio"
            name="stage"
            value={s}
            checked={stage.value === s}
            onChange={() => {
              stage.value = s;
              onChange?.();
            }}
          />
          {s === 'preview' ? 'Preview' : 'Live'}
        </label>
      ))}
    </fieldset>
  );
}

/** `documents`: one object, or an array of them (Insert). */
export type Shape = 'object' | 'array' | 'documents';

/** The problem with `text` as JSON of that shape, or undefined when it is fine (blank counts as absent). */
export function jsonProblem(text: string, shape: Shape, required = false): string | undefined {
  if (!text.trim()) return required ? 'Required' : undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `Not JSON: ${(e as Error).message}`;
  }
  if (shape === 'documents' && Array.isArray(value))
    return value.every((v) => v && typeof v === 'object' && !Array.isArray(v))
      ? undefined
      : 'Must be a JSON object or an array of objects';
  if (shape === 'array' && !Array.isArray(value)) return 'Must be a JSON array';
  if (shape === 'object' && (value === null || typeof value !== 'object' || Array.isArray(value)))
    return 'Must be a JSON object';
  return undefined;
}

/** The parsed value, or undefined for blank text. Call after jsonProblem said it is fine. */
export const parsed = <T = Record<string, unknown>>(text: string): T | undefined =>
  text.trim() ? (JSON.parse(text) as T) : undefined;

interface JsonFieldProps {
  label: string;
  value: string;
  onInput: (v: string) => void;
  shape?: Shape;
  required?: boolean;
  rows?: number;
  hint?: string;
}

/** A JSON editor: the parse error (or wrong shape) is shown at the field as you type. */
export function JsonField(p: JsonFieldProps) {
  const id = useId();
  const problem = jsonProblem(p.value, p.shape ?? 'object', p.required);
  const described = [problem ? `${id}-error` : '', p.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class="field json">
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        rows={p.rows ?? 2}
        spellcheck={false}
        value={p.value}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={described || undefined}
        onInput={(e) => p.onInput((e.target as HTMLTextAreaElement).value)}
      />
      {p.hint && (
        <small id={`${id}-hint`} class="hint">
          {p.hint}
        </small>
      )}
      {problem && (
        <span id={`${id}-error`} class="field-error">
          {problem}
        </span>
      )}
    </div>
  );
}

const WRAPPERS: Record<string, (v: unknown) => string> = {
  $oid: (v) => `ObjectId("${v}")`,
  $date: (v) =>
    `ISODate("${typeof v === 'object' && v ? (v as { $numberLong: string }).$numberLong : String(v)}")`,
  $numberLong: (v) => `NumberLong(${v})`,
  $numberDouble: (v) => `NumberDouble(${v})`,
  $numberDecimal: (v) => `NumberDecimal(${v})`,
};

/** An extended-JSON wrapper ({$oid}, {$date}, {$numberLong}...) as the shell writes it, else undefined. */
function wrapped(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const make = keys.length === 1 ? WRAPPERS[keys[0] as string] : undefined;
  return make?.((value as Record<string, unknown>)[keys[0] as string]);
}

/** A value on one line: wrappers as the shell writes them, the rest as JSON. */
export function compact(value: unknown): string {
  return wrapped(value) ?? (value === undefined ? '' : JSON.stringify(value));
}

/** A collapsible tree of an extended-JSON value: objects and arrays open and close, leaves on one line. */
export function JsonTree({
  value,
  name,
  open,
}: {
  value: unknown;
  name?: ComponentChildren;
  open?: boolean;
}) {
  const label = name === undefined ? null : <span class="key">{name}: </span>;
  const leaf = wrapped(value);
  if (leaf !== undefined || value === null || typeof value !== 'object')
    return (
      <div class="leaf">
        {label}
        <code>{leaf ?? JSON.stringify(value)}</code>
      </div>
    );
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  return (
    <details open={open}>
      <summary>
        {label}
        {Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}
      </summary>
      <div class="children">
        {entries.map(([k, v]) => (
          <JsonTree key={k} name={k} value={v} />
        ))}
      </div>
    </details>
  );
}
