// The audit log: filters by user, area (or exact action) and time; each entry's before/after difference.
import { useState } from 'preact/hooks';
import { jsonText, UnifiedDiff } from '../diff-view.js';
import { useLoad } from '../load.js';
import { call } from '../session.js';
import { Field, messageOf, Pager, Section, Select } from '../ui.js';

/** The areas of the audit log's actions (docs/administration.md): `action=snapshot` matches snapshot.*. */
const AREAS = [
  'config',
  'snapshot',
  'screenSnapshot',
  'manage',
  'auth',
  'game',
  'admin',
  'players',
  'leaderboards',
];

export function AuditPage({ apiKey }: { apiKey: string }) {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [area, setArea] = useState('');
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
    setApplied({ actor, action: action.trim() || area, since, until });
  };
  const d = log.data;
  return (
    <>
      <h1>Audit log</h1>
      <Section title="Filters">
        <form onSubmit={filter} class="row">
          <Field label="User" value={actor} onInput={setActor} />
          <Select label="Area" value={area} options={[['', 'All areas'], ...AREAS]} onInput={setArea} />
          <Field
            label="Action"
            value={action}
            onInput={setAction}
            hint="Exact, for example config.post (overrides the area)"
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
                  <summary>
                    Difference{' '}
                    <span class="sr-only">
                      of entry {e.action} at {e.at}
                    </span>
                  </summary>
                  <UnifiedDiff
                    label={`Before and after of ${e.action} at ${e.at}`}
                    before={jsonText(e.before)}
                    after={jsonText(e.after)}
                  />
                </details>
              )}
            </li>
          ))}
        </ol>
        <Pager
          page={page}
          hasNext={!!d && d.page * d.pageSize < d.total}
          onPage={setPage}
          what="the audit log"
        />
      </Section>
    </>
  );
}
