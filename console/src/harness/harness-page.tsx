// The test harness: a stage and a server credential (its secret typed here, kept in memory only), a catalogue of
// requests from the configuration, a JSON editor for one request or an array, saved scenarios, and a
// colour-coded log of requests, responses and errors with, in Preview, each request's trace inline.
import type { Stage } from 'playbase/client';
import { useEffect, useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { TextArea } from '../textarea.js';
import { Field, messageOf, Section, Select, useBusy } from '../ui.js';
import {
  type CatalogueEntry,
  listCredentials,
  loadCatalogue,
  parseRequests,
  type Req,
  send,
} from './catalogue.js';
import { type LogEntry, LogView } from './log.js';
import { loadScenarios, readScenarios, type Scenario, storeScenarios } from './scenarios.js';

export default function HarnessPage({ apiKey }: { apiKey: string }) {
  const [stage, setStage] = useState<Stage>('preview');
  const credentials = useLoad(() => listCredentials(apiKey), [apiKey]);
  const catalogue = useLoad(() => loadCatalogue(apiKey), [apiKey]);
  const [credential, setCredential] = useState('');
  const [secret, setSecret] = useState('');
  const [text, setText] = useState('');
  const [log, setLog] = useState<LogEntry[]>([]);
  const [player, setPlayer] = useState<string>();
  const [scenarios, setScenarios] = useState<Scenario[]>(() => loadScenarios(apiKey));
  const [scenarioName, setScenarioName] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, work] = useBusy();
  useEffect(() => {
    if (!credential && credentials.data?.[0]) setCredential(credentials.data[0].name);
  }, [credentials.data]);
  const keep = (list: Scenario[]) => {
    setScenarios(list);
    storeScenarios(apiKey, list);
  };
  const add = (e: LogEntry) => setLog((l) => [...l, e]);

  const sendAll = () =>
    work(async () => {
      setProblem('');
      let requests: Req[];
      try {
        requests = parseRequests(text);
      } catch (e) {
        setProblem(messageOf(e));
        return;
      }
      let current = player;
      for (const req of requests) {
        add({ kind: 'request', stage, body: req });
        try {
          const answer = await send({ apiKey, stage, credential, secret }, req, current);
          if (typeof answer.userId === 'string') current = answer.userId;
          add({ kind: answer.error ? 'error' : 'response', stage, body: answer });
        } catch (e) {
          add({ kind: 'error', stage, body: { message: messageOf(e) } });
        }
      }
      setPlayer(current);
    });

  const exportHref = `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(scenarios, null, 2))}`;
  const groups = [...new Set((catalogue.data ?? []).map((c) => c.group))];
  return (
    <>
      <h1>Test harness</h1>
      <Section title="Where">
        <div class="row">
          <Select
            label="Stage"
            value={stage}
            options={[
              ['preview', 'Preview'],
              ['live', 'Live'],
            ]}
            onInput={(v) => setStage(v as Stage)}
          />
          <Select
            label="Server credential"
            value={credential}
            options={(credentials.data ?? []).map((c) => c.name)}
            onInput={setCredential}
          />
          <Field
            label="Credential secret"
            type="password"
            autoComplete="off"
            hint="Kept in this page only"
            value={secret}
            onInput={setSecret}
          />
        </div>
        {credentials.error !== undefined && <p class="error">{messageOf(credentials.error)}</p>}
        <p>Current player: {player ? <code>{player}</code> : 'none yet (register or authenticate)'}</p>
      </Section>
      <div class="split">
        <Section title="Catalogue">
          {catalogue.error !== undefined && <p class="error">{messageOf(catalogue.error)}</p>}
          {groups.map((g) => (
            <div key={g}>
              <h3>{g}</h3>
              <ul class="catalogue">
                {(catalogue.data ?? [])
                  .filter((c: CatalogueEntry) => c.group === g)
                  .map((c) => (
                    <li key={c.label}>
                      <button
                        type="button"
                        class="link"
                        onClick={() => setText(JSON.stringify(c.request, null, 2))}
                      >
                        {c.label}
                      </button>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </Section>
        <Section title="Request">
          <TextArea label="Request JSON (one request or an array)" rows={12} value={text} onInput={setText} />
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <button type="button" disabled={busy || !text.trim() || !credential} onClick={sendAll}>
            Send
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setLog([])}>
            Clear log
          </button>
          <h3>Scenarios</h3>
          <Field label="Scenario name" value={scenarioName} onInput={setScenarioName} />
          <button
            type="button"
            class="secondary"
            disabled={!scenarioName.trim()}
            onClick={() => {
              try {
                const requests = parseRequests(text);
                keep([...scenarios.filter((s) => s.name !== scenarioName), { name: scenarioName, requests }]);
              } catch (e) {
                setProblem(messageOf(e));
              }
            }}
          >
            Save as scenario
          </button>{' '}
          {scenarios.length > 0 && (
            <a href={exportHref} download={`scenarios-${apiKey}.json`}>
              Export scenarios
            </a>
          )}
          <div class="field">
            <label for="harness-import">Import scenarios</label>
            <input
              id="harness-import"
              type="file"
              accept="application/json,.json"
              onChange={async (e) => {
                const file = (e.target as HTMLInputElement).files?.[0];
                if (!file) return;
                try {
                  const more = readScenarios(await file.text());
                  keep([...scenarios.filter((s) => !more.some((m) => m.name === s.name)), ...more]);
                } catch (err) {
                  setProblem(messageOf(err));
                }
              }}
            />
          </div>
          <ul>
            {scenarios.map((s) => (
              <li key={s.name}>
                {s.name} ({s.requests.length}){' '}
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setText(JSON.stringify(s.requests, null, 2))}
                >
                  Load <span class="sr-only">{s.name}</span>
                </button>{' '}
                <button type="button" class="danger" onClick={() => keep(scenarios.filter((x) => x !== s))}>
                  Delete <span class="sr-only">{s.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </Section>
      </div>
      <Section title="Log">
        <LogView entries={log} />
      </Section>
    </>
  );
}
