// A labelled multi-line field for code and JSON (Manage editors, the test harness).
import { useState } from 'preact/hooks';

let areaIds = 0;
export function TextArea(p: { label: string; value: string; onInput: (v: string) => void; rows?: number }) {
  const [id] = useState(() => `ta${++areaIds}`);
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        class="code"
        rows={p.rows ?? 10}
        spellcheck={false}
        value={p.value}
        onInput={(e) => p.onInput((e.target as HTMLTextAreaElement).value)}
      />
    </div>
  );
}
