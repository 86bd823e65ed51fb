// The whole configuration as one JSON document: download it; upload one, see the difference, then apply it
// (PUT /config replaces the working copy in one transaction) or cancel.

import { useState } from 'preact/hooks';
import { changedLines, UnifiedDiff } from '../diff-view.js';
import { useCan } from '../permissions.js';
import { call } from '../session.js';
import { Alert, ErrorSummary, FormError, messageOf, Section, saveFile, useBusy } from '../ui.js';

/** The document as the API takes it back: without the game's key, keys in a stable order. */
const pretty = (config: unknown) => `${JSON.stringify(config, null, 2)}\n`;

export function WholeConfigPage({ apiKey }: { apiKey: string }) {
  const path = { params: { path: { apiKey } } };
  const canWrite = useCan()('configurator.config', 2);
  const [busy, run] = useBusy();
  const [error, setError] = useState('');
  const [proposal, setProposal] = useState<{ file: string; text: string; current: string }>();
  const [failure, setFailure] = useState<FormError>();
  const [status, setStatus] = useState('');
  const current = () =>
    call((c) =>
      c.api.GET('/restv2/game/{apiKey}/config', { params: { path: { apiKey }, query: { full: true } } }),
    );

  const download = () => {
    setError('');
    void run(current)
      .then((config) => {
        saveFile(`playbase-config-${apiKey}.json`, new Blob([pretty(config)], { type: 'application/json' }));
      })
      .catch((e) => setError(messageOf(e)));
  };
  const choose = (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    setError('');
    setFailure(undefined);
    setStatus('');
    if (!file) return;
    void run(async () => {
      const text = await file.text();
      try {
        JSON.parse(text);
      } catch (err) {
        throw new Error(`${file.name} is not JSON: ${(err as Error).message}`);
      }
      setProposal({ file: file.name, text, current: pretty(await current()) });
    }).catch((err) => setError(messageOf(err)));
  };
  const apply = () => {
    if (!proposal) return;
    setFailure(undefined);
    void run(() =>
      call((c) => c.api.PUT('/restv2/game/{apiKey}/config', { ...path, body: JSON.parse(proposal.text) })),
    )
      .then(() => {
        setProposal(undefined);
        setStatus('Configuration applied to the working copy.');
      })
      .catch((err) => setFailure(new FormError(err, [])));
  };
  const changed = proposal ? changedLines(proposal.current, pretty(JSON.parse(proposal.text))) : false;
  return (
    <>
      <h1>Whole configuration</h1>
      <Section title="Download">
        <p>
          The events, running totals, leaderboards, indexed types and credentials (never secrets) as one JSON
          file.
        </p>
        <button type="button" class="secondary" onClick={download} disabled={busy}>
          Download configuration
        </button>
      </Section>
      {canWrite && (
        <Section title="Upload">
          <div class="field">
            <label for="config-file">Configuration file (JSON)</label>
            <input id="config-file" type="file" accept="application/json,.json" onChange={choose} />
          </div>
          <p role="status">{status}</p>
        </Section>
      )}
      <Alert text={error} />
      {proposal && (
        <Section title={`Difference: ${proposal.file} against the working copy`}>
          <ErrorSummary failure={failure} />
          {!changed && <p>No difference: applying it changes nothing.</p>}
          <UnifiedDiff
            before={proposal.current}
            after={pretty(JSON.parse(proposal.text))}
            label="Configuration difference"
          />
          <div class="buttons">
            <button type="button" onClick={apply} disabled={busy}>
              Apply configuration
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
