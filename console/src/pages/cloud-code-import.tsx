// A Cloud Code zip's import, file by file: the server's dry run says what the zip would add, change and delete
// (and which files it refuses, and why); each of those files shows its difference and can be accepted or refused.
// "Apply import" then sends one zip made of what was accepted and, for what was refused, the game's own scripts,
// so the import is still one audited write that does exactly what the page showed.
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { useState } from 'preact/hooks';
import { UnifiedDiff } from '../diff-view.js';
import { call } from '../session.js';
import { Alert, messageOf, Section, useBusy } from '../ui.js';

interface DryRun {
  added: string[];
  changed: string[];
  deleted: string[];
  unchanged: string[];
  refused: { file: string; reason: string }[];
}
interface Proposal {
  file: string;
  dryRun: DryRun;
  /** `folder/shortCode.js` → the zip's text. */
  incoming: Map<string, string>;
  /** `folder/shortCode.js` → the game's text, for the files that change or go. */
  current: Map<string, string>;
  /** The scripts the game has now, by file. */
  existing: string[];
}

/** The zip's files by `folder/shortCode.js`, read as the server reads them (one top folder dropped, no BOM). */
export function readZip(bytes: Uint8Array): Map<string, string> {
  const entries = Object.entries(unzipSync(bytes)).filter(([name]) => !name.endsWith('/'));
  const tops = new Set(entries.map(([name]) => name.split('/')[0]));
  const nested = tops.size === 1 && entries.every(([name]) => name.split('/').length >= 3);
  return new Map(
    entries.map(([name, data]) => [
      nested ? name.split('/').slice(1).join('/') : name,
      strFromU8(data).replace(/^\uFEFF/, ''),
    ]),
  );
}

const split = (file: string) => {
  const [folder = '', name = ''] = file.split('/');
  return { folder, shortCode: name.replace(/\.js$/, '') };
};

export function ImportScripts({ apiKey, onImported }: { apiKey: string; onImported: () => void }) {
  const [busy, run] = useBusy();
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [proposal, setProposal] = useState<Proposal>();
  const [refused, setRefused] = useState<Set<string>>(new Set());
  const send = (zip: Uint8Array, dryRun: boolean) =>
    call((c) =>
      c.api.POST('/restv2/game/{apiKey}/config/~scripts/import', {
        params: { path: { apiKey }, query: { dryRun } },
        body: zip as never,
        bodySerializer: (body: unknown) => body as never,
        headers: { 'content-type': 'application/zip' },
      }),
    ) as Promise<DryRun>;
  const source = (file: string) =>
    call((c) =>
      c.api.GET('/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}', {
        params: { path: { apiKey, ...(split(file) as { folder: 'event'; shortCode: string }) } },
      }),
    ).then((s) => s.script);

  const choose = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    setError('');
    setStatus('');
    setProposal(undefined);
    if (!file) return;
    void run(async () => {
      setStatus('Reading the zip…');
      const zip = new Uint8Array(await file.arrayBuffer());
      const dryRun = await send(zip, true);
      let incoming = new Map<string, string>();
      try {
        incoming = readZip(zip);
      } catch {
        // The server read it; the page only lacks the differences.
      }
      const list = await call((c) =>
        c.api.GET('/restv2/game/{apiKey}/config/~scripts', { params: { path: { apiKey } } }),
      );
      const existing = list.map((s) => `${s.folder}/${s.shortCode}.js`);
      const current = new Map<string, string>();
      for (const f of [...dryRun.changed, ...dryRun.deleted]) current.set(f, await source(f));
      setRefused(new Set());
      setProposal({ file: file.name, dryRun, incoming, current, existing });
      setStatus('');
    })
      .catch((err) => {
        setStatus('');
        setError(messageOf(err));
      })
      .finally(() => {
        input.value = '';
      });
  };

  const apply = () => {
    if (!proposal) return;
    const { dryRun, incoming, current, existing } = proposal;
    void run(async () => {
      const files: Record<string, Uint8Array> = {};
      const keep = async (f: string) => {
        files[f] = strToU8(current.get(f) ?? (await source(f)));
      };
      for (const f of dryRun.unchanged) files[f] = strToU8(incoming.get(f) ?? (await source(f)));
      for (const f of dryRun.added) if (!refused.has(f)) files[f] = strToU8(incoming.get(f) ?? '');
      for (const f of dryRun.changed) {
        if (refused.has(f)) await keep(f);
        else files[f] = strToU8(incoming.get(f) ?? '');
      }
      for (const f of dryRun.deleted) if (refused.has(f)) await keep(f);
      // A file the server refused keeps the game's script of that name.
      for (const r of dryRun.refused) if (existing.includes(r.file) && !files[r.file]) await keep(r.file);
      const answer = await send(zipSync(files), false);
      setProposal(undefined);
      setStatus(
        `Imported: ${answer.added.length} added, ${answer.changed.length} changed, ${answer.deleted.length} deleted.`,
      );
      onImported();
    }).catch((err) => setError(messageOf(err)));
  };

  const toggle = (f: string, accept: boolean) => {
    const next = new Set(refused);
    if (accept) next.delete(f);
    else next.add(f);
    setRefused(next);
  };
  const rows = proposal
    ? [
        ...proposal.dryRun.added.map((f) => ['added', f] as const),
        ...proposal.dryRun.changed.map((f) => ['changed', f] as const),
        ...proposal.dryRun.deleted.map((f) => ['deleted', f] as const),
      ]
    : [];
  return (
    <>
      <div class="field">
        <label for="scripts-zip">Scripts zip to import</label>
        <input id="scripts-zip" type="file" accept=".zip,application/zip" onChange={choose} disabled={busy} />
      </div>
      <p role="status" aria-live="polite">
        {status}
      </p>
      <Alert text={error} />
      {proposal && (
        <Section title={`Import of ${proposal.file}`}>
          <p>
            {rows.length} file(s) would change the scripts; {proposal.dryRun.unchanged.length} unchanged.
            Refuse a file to keep the game's script as it is.
          </p>
          {rows.map(([what, f]) => (
            <div key={f} class="import-file">
              <label>
                <input
                  type="checkbox"
                  checked={!refused.has(f)}
                  onChange={(e) => toggle(f, e.currentTarget.checked)}
                />{' '}
                Accept {f} ({what})
              </label>
              <UnifiedDiff
                label={`Difference of ${f}`}
                before={what === 'added' ? '' : (proposal.current.get(f) ?? '')}
                after={what === 'deleted' ? '' : (proposal.incoming.get(f) ?? '')}
              />
            </div>
          ))}
          {proposal.dryRun.refused.length > 0 && (
            <>
              <h3>Refused by the server</h3>
              <ul>
                {proposal.dryRun.refused.map((r) => (
                  <li key={r.file}>
                    <code>{r.file}</code>: {r.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div class="buttons">
            <button type="button" onClick={apply} disabled={busy}>
              Apply import
            </button>
            <button type="button" class="secondary" onClick={() => setProposal(undefined)}>
              Cancel
            </button>
          </div>
        </Section>
      )}
    </>
  );
}
