// Snapshots: create with a description; per row Publish, Unpublish, Revert, Delete; the Live one marked.
import { useState } from 'preact/hooks';
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
  Pager,
  Search,
  Section,
  useBusy,
} from '../ui.js';

const PAGE_SIZE = 50;

import { CompareSnapshots, CopySnapshot } from './snapshot-tools.js';

export function SnapshotsPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const [page, setPage] = useState(1);
  const [query, setQuery] = useState('');
  const can = useCan();
  const canWrite = can('admin.snapshots', 2);
  const canPublish = can('admin.publish', 2);
  const list = useLoad(
    () =>
      Promise.all([
        call((c) =>
          c.api.GET('/restv2/game/{apiKey}/admin/snapshots/page/{n}', {
            params: { path: { apiKey, n: page }, query: { pageSize: PAGE_SIZE } },
          }),
        ),
        call((c) => c.api.GET('/restv2/game/{apiKey}/admin/snapshots/liveSnapshotId', path)),
      ]),
    [apiKey, page],
  );
  const [description, setDescription] = useState('');
  const [failure, setFailure] = useState<FormError>();
  const [status, setStatus] = useState('');
  const [busy, run] = useBusy();
  const [rowError, setRowError] = useState('');
  const create = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    void run(() =>
      call((c) => c.api.POST('/restv2/game/{apiKey}/admin/snapshots', { ...path, body: { description } })),
    )
      .then(async () => {
        setDescription('');
        setStatus('Snapshot created.');
        await list.reload();
      })
      .catch((err) => setFailure(new FormError(err, ['description'])));
  };
  const act = (what: string, work: () => Promise<unknown>, question?: string) => {
    if (question && !confirmed(question)) return;
    setRowError('');
    setStatus(`${what}…`);
    void run(work)
      .then(async () => {
        setStatus(`${what}: done.`);
        await list.reload();
      })
      .catch((e) => {
        setStatus('');
        setRowError(messageOf(e));
      });
  };
  const idPath = (id: string) => ({ params: { path: { apiKey, id } } });
  const [snapshots, live] = list.data ?? [[], { liveSnapshotId: null }];
  return (
    <>
      <h1>Snapshots</h1>
      <Section title="Create snapshot">
        <form onSubmit={create} class="inline-form">
          <ErrorSummary failure={failure} />
          <Field
            label="Description"
            value={description}
            onInput={setDescription}
            error={failure?.at('description')}
          />
          <button type="submit" disabled={busy || !canWrite}>
            Create snapshot
          </button>
        </form>
        <p role="status" aria-live="polite">
          {status}
        </p>
      </Section>
      <Section title="Snapshots">
        <Alert text={rowError} />
        {list.error !== undefined && <p class="error">{messageOf(list.error)}</p>}
        <p>
          Live runs:{' '}
          <strong>
            {snapshots.find((s) => s.id === live.liveSnapshotId)?.description ||
              live.liveSnapshotId ||
              'nothing yet'}
          </strong>
        </p>
        <Search label="Search snapshots" value={query} onInput={setQuery} />
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Description</th>
              <th scope="col">By</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {snapshots
              .filter((s) => matches(query, s.description, s.createdBy, s.id))
              .map((s) => {
                const isLive = s.id === live.liveSnapshotId;
                const label = s.description || s.id;
                return (
                  <tr key={s.id} class={isLive ? 'live' : undefined}>
                    <td>{s.created.slice(0, 19).replace('T', ' ')}</td>
                    <td>{s.description}</td>
                    <td>{s.createdBy}</td>
                    <td>
                      {isLive ? <span class="badge live">Live</span> : s.published ? 'published before' : ''}
                    </td>
                    <td class="actions">
                      {isLive ? (
                        <button
                          type="button"
                          class="secondary"
                          disabled={busy || !canPublish}
                          onClick={() =>
                            act(
                              'Unpublishing',
                              () =>
                                call((c) =>
                                  c.api.POST(
                                    '/restv2/game/{apiKey}/admin/snapshots/{id}/unpublish',
                                    idPath(s.id),
                                  ),
                                ),
                              `Unpublish "${label}"? Live stops running it.`,
                            )
                          }
                        >
                          Unpublish <span class="sr-only">{label}</span>
                        </button>
                      ) : (
                        <button
                          type="button"
                          disabled={busy || !canPublish}
                          onClick={() =>
                            act(
                              'Publishing',
                              () =>
                                call((c) =>
                                  c.api.POST(
                                    '/restv2/game/{apiKey}/admin/snapshots/{id}/publish',
                                    idPath(s.id),
                                  ),
                                ),
                              `Publish "${label}" to Live?`,
                            )
                          }
                        >
                          Publish <span class="sr-only">{label}</span>
                        </button>
                      )}
                      <button
                        type="button"
                        class="secondary"
                        disabled={busy || !canWrite}
                        onClick={() =>
                          act(
                            'Reverting',
                            () =>
                              call((c) =>
                                c.api.POST(
                                  '/restv2/game/{apiKey}/admin/snapshots/revert/to/{id}',
                                  idPath(s.id),
                                ),
                              ),
                            `Revert the working copy to "${label}"? It is saved first as an AUTOSAVE snapshot.`,
                          )
                        }
                      >
                        Revert <span class="sr-only">{label}</span>
                      </button>
                      {!isLive && (
                        <button
                          type="button"
                          class="danger"
                          disabled={busy || !canWrite}
                          onClick={() =>
                            act(
                              'Deleting',
                              () =>
                                call((c) =>
                                  c.api.DELETE('/restv2/game/{apiKey}/admin/snapshots/{id}', idPath(s.id)),
                                ),
                              `Delete the snapshot "${label}"?`,
                            )
                          }
                        >
                          Delete <span class="sr-only">{label}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
          </tbody>
        </table>
        <Pager page={page} hasNext={snapshots.length === PAGE_SIZE} onPage={setPage} what="snapshots" />
      </Section>
      {snapshots.length > 0 && (
        <CompareSnapshots key={snapshots.length} apiKey={apiKey} snapshots={snapshots} />
      )}
      {snapshots.length > 0 && canWrite && (
        <CopySnapshot key={snapshots.length} apiKey={apiKey} snapshots={snapshots} />
      )}
    </>
  );
}
