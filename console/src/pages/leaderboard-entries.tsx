// The leaderboards of a stage as they stand: each one's next reset and partitions (boards), a board's top
// entries (paged) or the entries around a player, deleting one entry (a cheater) and resetting now, each with a
// confirmation (docs/players.md, "Leaderboards").
import { useState } from 'preact/hooks';
import { compact, StageSwitch } from '../data/widgets.js';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { onStage, stage } from '../stage.js';
import { confirmed, Field, messageOf, Section, Select, useBusy } from '../ui.js';

type Entry = Record<string, unknown>;
const COUNT = 50;

export function LeaderboardEntriesPage({ apiKey }: { apiKey: string }) {
  const write = useCan()('nosql.leaderboards', 2);
  const [chosen, setChosen] = useState('');
  const [board, setBoard] = useState('');
  const [aroundId, setAroundId] = useState('');
  const [shown, setShown] = useState<{ code: string; offset: number; around?: string }>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [busy, run] = useBusy();
  const boards = useLoad(
    () =>
      onStage(apiKey, (s) =>
        s.GET('/restv2/game/{gameApiKey}/leaderboards', { params: { path: { gameApiKey: apiKey } } }),
      ),
    [apiKey, stage.value],
  );
  const list = boards.data ?? [];
  const lb = list.find((l) => l.shortCode === chosen) ?? list[0];
  const code = board || lb?.shortCode || '';
  const entries = useLoad(async (): Promise<Entry[]> => {
    if (!shown) return [];
    if (shown.around !== undefined) {
      const r = await onStage(apiKey, (s) =>
        s.GET('/restv2/game/{gameApiKey}/leaderboards/{shortCode}/around/{playerId}', {
          params: {
            path: { gameApiKey: apiKey, shortCode: shown.code, playerId: shown.around ?? '' },
            query: { count: 10 },
          },
        }),
      );
      return r.entries as Entry[];
    }
    const r = await onStage(apiKey, (s) =>
      s.GET('/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries', {
        params: {
          path: { gameApiKey: apiKey, shortCode: shown.code },
          query: { offset: shown.offset, count: COUNT },
        },
      }),
    );
    return r.entries as Entry[];
  }, [apiKey, shown, stage.value]);
  const act = (work: () => Promise<string>) => {
    setError('');
    setStatus('');
    void run(work).then(
      (done) => {
        setStatus(done ?? '');
        void boards.reload();
        void entries.reload();
      },
      (e) => setError(messageOf(e)),
    );
  };
  const deleteEntry = (e: Entry) => {
    const who = String(e.userName ?? e.userId);
    if (!shown || !confirmed(`Delete the entry of ${who} from ${shown.code}?`)) return;
    act(async () => {
      await onStage(apiKey, (s) =>
        s.DELETE('/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries/{playerId}', {
          params: { path: { gameApiKey: apiKey, shortCode: shown.code, playerId: String(e.userId) } },
        }),
      );
      return `Deleted the entry of ${who}`;
    });
  };
  const reset = () => {
    if (!confirmed(`Reset ${code} now? Every entry of it is deleted.`)) return;
    act(async () => {
      const r = await onStage(apiKey, (s) =>
        s.POST('/restv2/game/{gameApiKey}/leaderboards/{shortCode}/reset', {
          params: { path: { gameApiKey: apiKey, shortCode: code } },
        }),
      );
      return `Reset ${code}: ${r.boards} boards, ${r.entries} entries deleted`;
    });
  };
  // Rows of an earlier board are not shown while another loads.
  const rows = entries.loading ? [] : (entries.data ?? []);
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== 'userId');
  return (
    <>
      <h1>Leaderboard entries</h1>
      <StageSwitch onChange={() => setShown(undefined)} />
      {boards.error !== undefined && (
        <p class="error" role="alert">
          {messageOf(boards.error)}
        </p>
      )}
      {boards.data && list.length === 0 && <p>No leaderboard runs in this stage.</p>}
      {lb && (
        <Section title="Leaderboard">
          <div class="row">
            <Select
              label="Leaderboard"
              value={lb.shortCode}
              options={list.map((l) => l.shortCode)}
              onInput={(v) => {
                setChosen(v);
                setBoard('');
                setShown(undefined);
              }}
            />
            <Select
              label="Board"
              value={code}
              options={[
                [lb.shortCode, `${lb.shortCode} (whole)`],
                ...lb.boards
                  .filter((b) => b.partition)
                  .map((b) => [b.shortCode, `${b.shortCode} (${b.entries} entries)`] as [string, string]),
              ]}
              onInput={setBoard}
            />
          </div>
          <dl class="keys">
            <dt>Reset</dt>
            <dd>{lb.resetFrequency}</dd>
            <dt>Period start</dt>
            <dd>{lb.periodStart ?? '–'}</dd>
            <dt>Next reset</dt>
            <dd>{lb.nextReset ?? 'never'}</dd>
            <dt>Partitions</dt>
            <dd>
              {lb.partitionAttributes.length ? lb.partitionAttributes.join(', ') : 'none'};{' '}
              {lb.boards.map((b) => `${b.shortCode}: ${b.entries}`).join(', ') || 'no boards yet'}
              {lb.morePartitions ? ' (more not shown)' : ''}
            </dd>
          </dl>
          <div class="buttons">
            <button type="button" onClick={() => setShown({ code, offset: 0 })}>
              Top entries
            </button>
            {write && (
              <button type="button" class="danger" disabled={busy} onClick={reset}>
                Reset now
              </button>
            )}
          </div>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              setShown({ code, offset: 0, around: aroundId });
            }}
          >
            <Field label="Player id" value={aroundId} onInput={setAroundId} required />
            <button type="submit" class="secondary" disabled={!aroundId}>
              Entries around the player
            </button>
          </form>
        </Section>
      )}
      <p class="status" role="status">
        {status}
      </p>
      {(error || entries.error !== undefined) && (
        <p class="error" role="alert">
          {error || messageOf(entries.error)}
        </p>
      )}
      {shown && (
        <Section title={`Entries of ${shown.code}`}>
          {entries.loading ? <p>Loading…</p> : rows.length === 0 && <p>No entries.</p>}
          {rows.length > 0 && (
            <table>
              <thead>
                <tr>
                  {columns.map((k) => (
                    <th key={k} scope="col">
                      {k}
                    </th>
                  ))}
                  {write && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={String(r.userId)}>
                    {columns.map((k) => (
                      <td key={k}>{compact(r[k])}</td>
                    ))}
                    {write && (
                      <td>
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Delete entry of ${String(r.userName ?? r.userId)}`}
                          onClick={() => deleteEntry(r)}
                        >
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {shown.around === undefined && (
            <div class="buttons">
              <button
                type="button"
                class="secondary"
                disabled={shown.offset === 0}
                onClick={() => setShown({ ...shown, offset: Math.max(0, shown.offset - COUNT) })}
              >
                Previous entries
              </button>
              <button
                type="button"
                class="secondary"
                disabled={rows.length < COUNT}
                onClick={() => setShown({ ...shown, offset: shown.offset + COUNT })}
              >
                Next entries
              </button>
            </div>
          )}
        </Section>
      )}
    </>
  );
}
