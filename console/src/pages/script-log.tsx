// The script log of a stage: the `script.log` entries (docs/cloud-code.md, "The script log"), newest first,
// filtered by level, script, player and time, with the error stacks. It is a find on the runtime collection.
import { useState } from 'preact/hooks';
import { StageSwitch } from '../data/widgets.js';
import { useLoad } from '../load.js';
import { onStage, stage } from '../stage.js';
import { Field, messageOf, Section, Select } from '../ui.js';

const PAGE = 50;
const LEVELS = ['', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
type Line = {
  _id: unknown;
  ts?: { $date: string };
  level?: string;
  script?: string;
  playerId?: string;
  log?: unknown;
  error?: string;
  at?: string;
  stack?: string;
};

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function ScriptLogPage({ apiKey }: { apiKey: string }) {
  const [filters, setFilters] = useState({ level: '', script: '', playerId: '', since: '', until: '' });
  const [applied, setApplied] = useState({ ...filters, skip: 0 });
  const log = useLoad(() => {
    const query: Record<string, unknown> = {};
    if (applied.level) query.level = applied.level;
    if (applied.script) query.script = { $regex: `^${literal(applied.script)}` };
    if (applied.playerId) query.playerId = applied.playerId;
    const ts: Record<string, unknown> = {};
    if (applied.since) ts.$gte = { $date: new Date(applied.since).toISOString() };
    if (applied.until) ts.$lte = { $date: new Date(applied.until).toISOString() };
    if (Object.keys(ts).length) query.ts = ts;
    return onStage(apiKey, (s) =>
      s.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find', {
        params: { path: { gameApiKey: apiKey, collectionName: 'script.log' } },
        body: { query, sort: { ts: -1 }, skip: applied.skip, limit: PAGE },
      }),
    ) as Promise<Line[]>;
  }, [apiKey, applied, stage.value]);
  const set = (k: keyof typeof filters) => (v: string) => setFilters({ ...filters, [k]: v });
  const lines = log.loading ? [] : (log.data ?? []);
  return (
    <>
      <h1>Script log</h1>
      <StageSwitch />
      <Section title="Filters">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            setApplied({ ...filters, skip: 0 });
          }}
        >
          <Select
            label="Level"
            value={filters.level}
            options={LEVELS.map((l) => [l, l || 'Any'] as [string, string])}
            onInput={set('level')}
          />
          <Field
            label="Script"
            value={filters.script}
            onInput={set('script')}
            hint="The first letters, e.g. event/"
          />
          <Field label="Player id" value={filters.playerId} onInput={set('playerId')} />
          <Field label="From" type="datetime-local" value={filters.since} onInput={set('since')} />
          <Field label="To" type="datetime-local" value={filters.until} onInput={set('until')} />
          <button type="submit">Filter</button>
        </form>
      </Section>
      <Section title="Entries">
        {log.error !== undefined && (
          <p class="error" role="alert">
            {messageOf(log.error)}
          </p>
        )}
        {log.loading ? <p>Loading…</p> : log.data && lines.length === 0 && <p>No entries.</p>}
        <ol class="audit">
          {lines.map((l) => (
            <li key={JSON.stringify(l._id)} class={l.level === 'ERROR' ? 'log-error' : undefined}>
              <p>
                <time>{l.ts?.$date?.slice(0, 23).replace('T', ' ')}</time> <strong>{l.level}</strong>{' '}
                {l.script}
                {l.playerId && <> (player {l.playerId})</>}
                {l.at && <> at {l.at}</>}
              </p>
              <p class="log-text">{typeof l.log === 'string' ? l.log : JSON.stringify(l.log)}</p>
              {l.stack && (
                <details>
                  <summary>Stack ({l.error ?? 'error'})</summary>
                  {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable) */}
                  <pre tabIndex={0}>{l.stack}</pre>
                </details>
              )}
            </li>
          ))}
        </ol>
        <div class="buttons">
          <button
            type="button"
            class="secondary"
            disabled={applied.skip === 0}
            onClick={() => setApplied({ ...applied, skip: Math.max(0, applied.skip - PAGE) })}
          >
            Newer entries
          </button>
          <button
            type="button"
            class="secondary"
            disabled={lines.length < PAGE}
            onClick={() => setApplied({ ...applied, skip: applied.skip + PAGE })}
          >
            Older entries
          </button>
        </div>
      </Section>
    </>
  );
}
