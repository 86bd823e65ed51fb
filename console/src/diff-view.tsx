// A line difference shown as one unified block (+ added, - removed), used wherever the console shows what a change
// would do: the whole-configuration upload, a Cloud Code import, two snapshots.
import { diffLines } from 'diff';

const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, x]) => [k, sorted(x)]),
        )
      : v;

/** A JSON value as lines to compare: keys sorted, two-space indent. */
export const jsonText = (value: unknown): string =>
  value === undefined ? '' : `${JSON.stringify(sorted(value), null, 2)}\n`;

export function changedLines(before: string, after: string): boolean {
  return diffLines(before, after).some((p) => p.added || p.removed);
}

export function UnifiedDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const parts = diffLines(before, after);
  return (
    <section aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable) */}
      <pre class="unified" tabIndex={0}>
        {parts.map((p, i) => (
          <span key={i} class={p.added ? 'added' : p.removed ? 'removed' : 'same'}>
            {p.value
              .replace(/\n$/, '')
              .split('\n')
              .map((line) => `${p.added ? '+ ' : p.removed ? '- ' : '  '}${line}\n`)
              .join('')}
          </span>
        ))}
      </pre>
    </section>
  );
}
