// The audit log: filters by user, action and time; each entry's before and after.
import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { call } from '../session.js';
import { Field, messageOf, Section } from '../ui.js';

export function AuditPage({ apiKey }: { apiKey: string }) {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [page, setPage] = useState(1);
  const [applied, setApplied] = useState({ actor: '', action: '', since: '', until: '' });
  const log = useLoad(() => {
    const query: Record<string, string | number> = { page };
    for (const [k, v] of Object.entries(applied))
      if (v) query[k] = k === 'since' || k === 'until' ? new Date(v).toISOString() : v;
    return call((c) =>
      c.api.GET('/restv2/game/{apiKey}/admin/audit', { params: { path: { apiKey }, query: query as never } }),
    );
  }, [apiKey, page, applied]);
  const filter = (e: Event) => {
    e.preventDefault();
    setPage(1);
    setApplied({ actor, action, since, until });
  };
  const d = log.data;
  return (
    <>
      <h1>Audit log</h1>
      <Section title="Filters">
        <form onSubmit={filter} class="row">
          <Field label="User" value={actor} onInput={setActor} />
          <Field
            label="Action"
            value={action}
            onInput={setAction}
            hint="For example config.post, game.patch"
          />
          <Field label="From" type="datetime-local" value={since} onInput={setSince} />
          <Field label="To" type="datetime-local" value={until} onInput={setUntil} />
          <button type="submit">Filter</button>
        </form>
      </Section>
      <Section title="Entries">
        {log.error !== undefined && (
          <p class="error" role="alert">
            {messageOf(log.error)}
          </p>
        )}
        {d && (
          <p>
            {d.total} entries; page {d.page} of {Math.max(1, Math.ceil(d.total / d.pageSize))}
          </p>
        )}
        <ol class="audit">
          {(d?.entries ?? []).map((e) => (
            <li key={e.id}>
              <p>
                <time>{e.at.slice(0, 19).replace('T', ' ')}</time> <strong>{e.action}</strong> by {e.actor}
                {e.path && (
                  <>
                    {' '}
                    <code>
                      {e.method} {e.path}
                    </code>
                  </>
                )}
                {e.status !== null && <> → {e.status}</>}
              </p>
              {(e.before !== undefined || e.after !== undefined) && (
                <details>
                  <summary>Before and after</summary>
                  <div class="diff">
                    <figure>
                      <figcaption>Before</figcaption>
                      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable) */}
                      <pre tabIndex={0}>{JSON.stringify(e.before ?? null, null, 2)}</pre>
                    </figure>
                    <figure>
                      <figcaption>After</figcaption>
                      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable) */}
                      <pre tabIndex={0}>{JSON.stringify(e.after ?? null, null, 2)}</pre>
                    </figure>
                  </div>
                </details>
              )}
            </li>
          ))}
        </ol>
        <div class="buttons">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!d || d.page * d.pageSize >= d.total}
            onClick={() => setPage(page + 1)}
          >
            Next page
          </button>
        </div>
      </Section>
    </>
  );
}
