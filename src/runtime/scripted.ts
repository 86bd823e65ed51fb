// A runtime request with its Cloud Code, in the original platform's order: request/<Class>, then for a
// LogEventRequest event/<eventKey>, then (unless a script set an error) the standard processing, then
// response/<ResponseClass>. scriptData set by any of them reaches the answer; an error set by a request or event
// script rejects the request before its processing. A script that throws or runs out of time fails the request
// with {"SCRIPT": "ERROR" | "TIMEOUT"} and the id of its script.log entry (its writes are rolled back).
import type { CloudScript } from '../types/config.js';
import type { ScriptOutcome, ScriptRunner } from '../types/script-runner.js';
import type { Answer, RequestInput } from './request-kit.js';

export interface TraceEntry {
  script: string;
  outcome: ScriptOutcome['outcome'];
  ms: number;
  logs: ScriptOutcome['logs'];
  calls: ScriptOutcome['calls'];
  error?: ScriptOutcome['failure'];
}

export interface Scripted {
  requestName: string;
  /** The answer's class without its dot, e.g. LogEventResponse. */
  responseName: string;
  /** Collects what each script did when the request asked for a trace (Preview only). */
  trace?: TraceEntry[];
}

const isEmpty = (o: Record<string, unknown>) => Object.keys(o).length === 0;

function failed(input: RequestInput, out: ScriptOutcome): Answer {
  const answer: Record<string, unknown> = {
    error: { SCRIPT: out.outcome === 'timeout' ? 'TIMEOUT' : 'ERROR' },
    scriptErrorId: out.errorId,
  };
  // Preview tells the developer what went wrong and where; Live shows clients nothing of the script.
  if (input.gs.stage === 'preview' && out.failure) {
    answer.scriptErrorMessage = out.failure.message;
    if (out.failure.at) answer.scriptErrorAt = out.failure.at;
  }
  return answer;
}

function withScriptData(answer: Answer, scriptData: Record<string, unknown>): Answer {
  return isEmpty(scriptData) ? answer : { ...answer, scriptData };
}

/** Runs the request with its scripts; a game without scripts for it runs just the handler. */
export async function runScripted(
  input: RequestInput,
  runner: ScriptRunner | undefined,
  how: Scripted,
  handler: (input: RequestInput) => Promise<Answer>,
): Promise<Answer> {
  if (!runner) return handler(input);
  const config = await input.env.configs.get(input.env.pool, input.gs.game, input.gs.stage);
  const scripts = config?.scripts;
  if (!config || !scripts || scripts.size === 0) return handler(input);
  const { body } = input;
  const eventKey = typeof body.eventKey === 'string' ? body.eventKey : undefined;
  const before = [
    scripts.get(`request/${how.requestName}`),
    how.requestName === 'LogEventRequest' && eventKey !== undefined
      ? scripts.get(`event/${eventKey}`)
      : undefined,
  ].filter((s): s is CloudScript => s !== undefined);
  const after = scripts.get(`response/${how.responseName}`);
  if (before.length === 0 && !after) return handler(input);

  let scriptData: Record<string, unknown> = {};
  let errors: Record<string, unknown> = {};
  const run = async (script: CloudScript, data: unknown, playerId: string | null) => {
    const out = await runner.run({
      gs: input.gs,
      script,
      modules: config.modules,
      data,
      playerId,
      scriptData,
      errors,
    });
    how.trace?.push({
      script: `${script.folder}/${script.shortCode}`,
      outcome: out.outcome,
      ms: out.ms,
      logs: out.logs,
      calls: out.calls,
      ...(out.failure ? { error: out.failure } : {}),
    });
    if (out.outcome === 'ok') {
      scriptData = out.scriptData;
      errors = out.errors;
    }
    return out;
  };

  const sender = typeof body.playerId === 'string' ? body.playerId : null;
  const request = { '@class': `.${how.requestName}`, ...body };
  for (const script of before) {
    const out = await run(script, request, sender);
    if (out.outcome !== 'ok') return failed(input, out);
  }
  // A request or event script's error rejects the request: no standard processing.
  if (!isEmpty(errors)) return withScriptData({ error: errors }, scriptData);

  const answer = await handler(input);
  if (!after) return withScriptData(answer, scriptData);
  const answerErrors = 'error' in answer && answer.error ? (answer.error as Record<string, unknown>) : {};
  errors = { ...answerErrors };
  const response = { '@class': `.${how.responseName}`, ...answer };
  const answered = (answer as Record<string, unknown>).userId;
  const userId = typeof answered === 'string' ? answered : sender;
  const out = await run(after, response, userId);
  if (out.outcome !== 'ok') return failed(input, out);
  const { error: _dropped, ...fields } = answer as Record<string, unknown>;
  return withScriptData(isEmpty(errors) ? fields : { ...fields, error: errors }, scriptData);
}
