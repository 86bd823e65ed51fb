// The harness's log: each request, response and error, colour-coded (and labelled, colour is not the only cue),
// with the Preview trace of a response shown inline: the scripts run, their time, log lines, store calls, errors.
import type { Stage } from 'playbase/client';

export interface LogEntry {
  kind: 'request' | 'response' | 'error';
  stage: Stage;
  body: Record<string, unknown>;
}

interface TraceEntry {
  script: string;
  outcome: string;
  ms: number;
  logs: { level: string; log: unknown }[];
  calls: { op: string; ms: number }[];
  error?: { message: string; at: string | null; stack: string };
}

const LABEL = { request: 'Request', response: 'Response', error: 'Error' } as const;

function Trace({ trace }: { trace: TraceEntry[] }) {
  return (
    <div class="trace">
      <strong>Trace</strong>
      <ol>
        {trace.map((t, i) => (
          <li key={`${t.script}-${i}`}>
            <code>{t.script}</code> {t.outcome}, {t.ms.toFixed(1)} ms
            {t.logs.length > 0 && (
              <ul aria-label={`Log lines of ${t.script}`}>
                {t.logs.map((l, j) => (
                  <li key={j}>
                    {l.level}: <code>{typeof l.log === 'string' ? l.log : JSON.stringify(l.log)}</code>
                  </li>
                ))}
              </ul>
            )}
            {t.calls.length > 0 && (
              <p>Store: {t.calls.map((c) => `${c.op} (${c.ms.toFixed(1)} ms)`).join(', ')}</p>
            )}
            {t.error && (
              <pre class="error">
                {t.error.message} {t.error.at ?? ''}
                {'\n'}
                {t.error.stack}
              </pre>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

export function LogView({ entries }: { entries: LogEntry[] }) {
  if (entries.length === 0) return <p>Nothing sent yet.</p>;
  return (
    <ol class="harness-log" aria-live="polite">
      {entries.map((e, i) => {
        const { trace, ...rest } = e.body as { trace?: TraceEntry[] };
        return (
          <li key={i} class={`log-${e.kind}`}>
            <span class="log-kind">
              {LABEL[e.kind]} ({e.stage})
            </span>
            <pre>{JSON.stringify(rest, null, 2)}</pre>
            {Array.isArray(trace) && trace.length > 0 && <Trace trace={trace} />}
          </li>
        );
      })}
    </ol>
  );
}
