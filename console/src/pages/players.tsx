// Players of a stage: search by user name, display name, id or external id; one player's record; edit its
// display name, currencies and scriptData; ban and unban; reset its sessions; export everything held about it
// as a JSON file; erase it (docs/players.md).
import { useState } from 'preact/hooks';
import { JsonField, JsonTree, jsonProblem, parsed, StageSwitch } from '../data/widgets.js';
import { useLoad } from '../load.js';
import { useCan } from '../permissions.js';
import { onStage, saveFile, stage } from '../stage.js';
import { confirmed, Field, messageOf, Section, Select, useBusy } from '../ui.js';

type By = '' | 'userName' | 'displayName' | 'id' | 'externalId';
const BY: [By, string][] = [
  ['', 'Any'],
  ['userName', 'User name'],
  ['displayName', 'Display name'],
  ['id', 'Id'],
  ['externalId', 'External id'],
];
const CURRENCIES = [1, 2, 3, 4, 5, 6].map((n) => `currency${n}`);
const PAGE = 20;

export function PlayersPage({ apiKey }: { apiKey: string }) {
  const [q, setQ] = useState('');
  const [by, setBy] = useState<By>('');
  const [applied, setApplied] = useState<{ q: string; by: By; skip: number }>();
  const [open, setOpen] = useState<string>();
  const [erased, setErased] = useState('');
  const found = useLoad(
    () =>
      applied
        ? onStage(apiKey, (s) =>
            s.GET('/restv2/game/{gameApiKey}/players', {
              params: {
                path: { gameApiKey: apiKey },
                query: {
                  q: applied.q,
                  ...(applied.by ? { by: applied.by } : {}),
                  skip: applied.skip,
                  limit: PAGE,
                },
              },
            }),
          )
        : Promise.resolve(undefined),
    [apiKey, applied, stage.value],
  );
  const search = (e: Event) => {
    e.preventDefault();
    setOpen(undefined);
    setErased('');
    setApplied({ q, by, skip: 0 });
  };
  const d = found.data;
  return (
    <>
      <h1>Players</h1>
      <StageSwitch onChange={() => setOpen(undefined)} />
      <Section title="Search">
        <form class="row" onSubmit={search}>
          <Field
            label="Player"
            type="search"
            value={q}
            onInput={setQ}
            required
            hint="A name's first letters, an id or an external id"
          />
          <Select label="Match" value={by} options={BY} onInput={(v) => setBy(v as By)} />
          <button type="submit" disabled={!q.trim()}>
            Search
          </button>
        </form>
        {found.error !== undefined && (
          <p class="error" role="alert">
            {messageOf(found.error)}
          </p>
        )}
        {d && (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">User name</th>
                  <th scope="col">Display name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Banned</th>
                </tr>
              </thead>
              <tbody>
                {d.players.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <button
                        type="button"
                        class="link"
                        onClick={() => {
                          setErased('');
                          setOpen(p.id);
                        }}
                      >
                        {p.userName ?? '(no user name)'}
                      </button>
                    </td>
                    <td>{p.displayName}</td>
                    <td>
                      <code>{p.id}</code>
                    </td>
                    <td>{p.lastSeen?.slice(0, 19).replace('T', ' ') ?? 'never'}</td>
                    <td>{p.banned ? 'banned' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {d.players.length === 0 && <p>No player matches.</p>}
            <div class="buttons">
              <button
                type="button"
                class="secondary"
                disabled={!applied || applied.skip === 0}
                onClick={() => applied && setApplied({ ...applied, skip: Math.max(0, applied.skip - PAGE) })}
              >
                Previous page
              </button>
              <button
                type="button"
                class="secondary"
                disabled={!d.more}
                onClick={() => applied && setApplied({ ...applied, skip: applied.skip + PAGE })}
              >
                Next page
              </button>
            </div>
          </>
        )}
      </Section>
      <p class="status" role="status">
        {erased}
      </p>
      {open && (
        <PlayerView
          key={`${stage.value}/${open}`}
          apiKey={apiKey}
          playerId={open}
          onErased={(message) => {
            setErased(message);
            setOpen(undefined);
            void found.reload();
          }}
        />
      )}
    </>
  );
}

function PlayerView({
  apiKey,
  playerId,
  onErased,
}: {
  apiKey: string;
  playerId: string;
  onErased: (message: string) => void;
}) {
  const write = useCan()('nosql.players', 2);
  const path = { params: { path: { gameApiKey: apiKey, playerId } } };
  const [busy, run] = useBusy();
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [edit, setEdit] = useState<{
    displayName: string;
    currencies: Record<string, string>;
    scriptData: string;
  }>();
  const [reason, setReason] = useState('');
  const player = useLoad(async () => {
    const p = await onStage(apiKey, (s) => s.GET('/restv2/game/{gameApiKey}/players/{playerId}', path));
    setEdit({
      displayName: p.displayName ?? '',
      currencies: Object.fromEntries(
        CURRENCIES.map((c) => [c, String((p.currencies as Record<string, number>)[c] ?? 0)]),
      ),
      scriptData: JSON.stringify(p.scriptData ?? {}, null, 2),
    });
    return p;
  }, [apiKey, playerId]);
  const act = (done: string, work: () => Promise<unknown>) => {
    setError('');
    setStatus('');
    void run(work).then(
      () => {
        setStatus(done);
        return player.reload();
      },
      (e) => setError(messageOf(e)),
    );
  };
  const p = player.data;
  if (!p || !edit)
    return player.error !== undefined ? (
      <p class="error" role="alert">
        {messageOf(player.error)}
      </p>
    ) : null;
  const name = p.userName ?? p.id;
  const save = (e: Event) => {
    e.preventDefault();
    act('Saved', () =>
      onStage(apiKey, (s) =>
        s.PATCH('/restv2/game/{gameApiKey}/players/{playerId}', {
          ...path,
          body: {
            displayName: edit.displayName,
            currencies: Object.fromEntries(CURRENCIES.map((c) => [c, Number(edit.currencies[c])])),
            scriptData: parsed(edit.scriptData) ?? {},
          },
        }),
      ),
    );
  };
  const exportIt = () =>
    act('Exported', async () => {
      const all = await onStage(apiKey, (s) =>
        s.GET('/restv2/game/{gameApiKey}/players/{playerId}/export', path),
      );
      saveFile(`player-${p.id}.json`, `${JSON.stringify(all, null, 2)}\n`);
    });
  const erase = () => {
    if (
      !confirmed(
        `Erase the player ${name} and everything keyed by it (entries, running totals, data items)? This cannot be undone.`,
      )
    )
      return;
    setError('');
    void run(() =>
      onStage(apiKey, (s) => s.DELETE('/restv2/game/{gameApiKey}/players/{playerId}', path)),
    ).then(
      (counts) => {
        onErased(
          `Erased ${name}: ${Object.entries(counts ?? {})
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`,
        );
      },
      (e) => setError(messageOf(e)),
    );
  };
  return (
    <Section title={`Player ${name}`}>
      <dl class="keys">
        <dt>Id</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>{p.created ?? ''}</dd>
        <dt>Last seen</dt>
        <dd>{p.lastSeen ?? 'never'}</dd>
        <dt>Ban</dt>
        <dd>
          {p.ban
            ? `Banned at ${p.ban.at} by ${p.ban.by}${p.ban.reason ? `: ${p.ban.reason}` : ''}`
            : 'Not banned'}
        </dd>
        <dt>Sessions reset</dt>
        <dd>{p.sessionsResetAt ?? 'never'}</dd>
      </dl>
      <JsonTree value={p.externalIds} name="externalIds" />
      <JsonTree value={p.privateData} name="privateData" />
      {write && (
        <form onSubmit={save} aria-label="Edit player">
          <Field
            label="Display name"
            value={edit.displayName}
            onInput={(v) => setEdit({ ...edit, displayName: v })}
          />
          <div class="row">
            {CURRENCIES.map((c) => (
              <Field
                key={c}
                label={c}
                type="number"
                value={edit.currencies[c] ?? '0'}
                onInput={(v) => setEdit({ ...edit, currencies: { ...edit.currencies, [c]: v } })}
              />
            ))}
          </div>
          <JsonField
            label="scriptData"
            value={edit.scriptData}
            onInput={(v) => setEdit({ ...edit, scriptData: v })}
            rows={4}
          />
          <button type="submit" disabled={busy || !!jsonProblem(edit.scriptData, 'object')}>
            Save player
          </button>
        </form>
      )}
      {!write && <JsonTree value={{ currencies: p.currencies, scriptData: p.scriptData }} name="data" open />}
      <div class="buttons">
        {write && p.banned && (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              act('Unbanned', () =>
                onStage(apiKey, (s) => s.POST('/restv2/game/{gameApiKey}/players/{playerId}/unban', path)),
              )
            }
          >
            Unban
          </button>
        )}
        <button type="button" class="secondary" disabled={busy} onClick={exportIt}>
          Export player
        </button>
        {write && (
          <>
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() =>
                act('Sessions reset', () =>
                  onStage(apiKey, (s) =>
                    s.POST('/restv2/game/{gameApiKey}/players/{playerId}/sessions/reset', path),
                  ),
                )
              }
            >
              Reset sessions
            </button>
            <button type="button" class="danger" disabled={busy} onClick={erase}>
              Erase player
            </button>
          </>
        )}
      </div>
      {write && !p.banned && (
        <form
          class="row"
          aria-label="Ban player"
          onSubmit={(e) => {
            e.preventDefault();
            if (!confirmed(`Ban ${name}? It can no longer log in or play.`)) return;
            act('Banned', () =>
              onStage(apiKey, (s) =>
                s.POST('/restv2/game/{gameApiKey}/players/{playerId}/ban', {
                  ...path,
                  body: reason ? { reason } : {},
                }),
              ),
            );
          }}
        >
          <Field label="Ban reason" value={reason} onInput={setReason} />
          <button type="submit" class="danger" disabled={busy}>
            Ban
          </button>
        </form>
      )}
      <p class="status" role="status">
        {status}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </Section>
  );
}
