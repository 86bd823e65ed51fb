// Runs an admin snippet's Cloud Code on a stage: the snippet's `script` with no player, Spark.getData().scriptData
// set to the caller's input, in the same sandbox, limits and rollback rules as every script; its answer is the
// script's scriptData (and error / scriptErrorId as scripts answer). Every run is audited (manage.snippet.run).
import type pg from 'pg';
import { getItem, type Snippet } from '../admin/manage.js';
import { loadStageConfig } from '../config/stages.js';
import type { TraceEntry } from '../runtime/scripted.js';
import { recordAudit } from '../store/audit.js';
import type { Stage } from '../store/scope.js';
import type { ScriptRunner } from '../types/script-runner.js';
import { snippetErrors } from './errors.js';

export interface SnippetEnv {
  pool: pg.Pool;
  scripts: ScriptRunner | undefined;
}

export interface Caller {
  actor: string;
  credential: string;
  requestId: string;
  path: string;
  at: number;
  owner: boolean;
  groups: readonly string[];
}

/** A snippet's trace entry: a runtime request's (src/runtime/scripted.ts). */
export type SnippetTrace = TraceEntry;

export interface SnippetAnswer {
  scriptData: Record<string, unknown>;
  error?: Record<string, unknown>;
  scriptErrorId?: string;
  scriptErrorMessage?: string;
  scriptErrorAt?: string;
  trace?: SnippetTrace[];
}

const isEmpty = (o: Record<string, unknown>) => Object.keys(o).length === 0;

/** The snippet's groups let the caller run it: no groups, the owner, or a group in common. */
export function mayRun(snippet: Pick<Snippet, 'groups'>, caller: Pick<Caller, 'owner' | 'groups'>): boolean {
  const groups = snippet.groups ?? [];
  return groups.length === 0 || caller.owner || groups.some((g) => caller.groups.includes(g));
}

export async function runSnippet(
  env: SnippetEnv,
  gs: { game: string; stage: Stage },
  shortCode: string,
  input: Record<string, unknown>,
  caller: Caller,
  trace: boolean,
): Promise<SnippetAnswer> {
  const snippet = (await getItem(env.pool, gs.game, 'snippet', shortCode)) as Snippet;
  if (!mayRun(snippet, caller)) throw snippetErrors.groupDenied(shortCode);
  if (!env.scripts) throw new Error('Cloud Code is not running in this process (the nosql role runs it)');
  // Modules of the stage (require); Live before its first publish has none.
  const staged = await loadStageConfig(env.pool, gs.game, gs.stage);
  const modules = new Map(
    (staged?.config['~scripts'] ?? [])
      .filter((s) => s.folder === 'modules')
      .map((s) => [s.shortCode, s.script]),
  );
  const out = await env.scripts.run({
    gs,
    script: { folder: 'snippets', shortCode, script: snippet.script },
    modules,
    data: { '@class': '.SnippetRequest', shortCode, scriptData: input },
    playerId: null,
    scriptData: {},
    errors: {},
  });
  const answer: SnippetAnswer = { scriptData: out.outcome === 'ok' ? out.scriptData : {} };
  if (out.outcome !== 'ok') {
    answer.error = { SCRIPT: out.outcome === 'timeout' ? 'TIMEOUT' : 'ERROR' };
    if (out.errorId) answer.scriptErrorId = out.errorId;
    // Preview tells the author what went wrong and where; Live keeps it in script.log.
    if (gs.stage === 'preview' && out.failure) {
      answer.scriptErrorMessage = out.failure.message;
      if (out.failure.at) answer.scriptErrorAt = out.failure.at;
    }
  } else if (!isEmpty(out.errors)) {
    answer.error = out.errors;
  }
  if (trace && gs.stage === 'preview') {
    answer.trace = [
      {
        script: `snippets/${shortCode}`,
        outcome: out.outcome,
        ms: out.ms,
        logs: out.logs,
        calls: out.calls,
        ...(out.failure ? { error: out.failure } : {}),
      },
    ];
  }
  await recordAudit(env.pool, {
    apiKey: gs.game,
    actor: caller.actor,
    credential: caller.credential,
    requestId: caller.requestId,
    action: 'manage.snippet.run',
    target: shortCode,
    method: 'POST',
    path: caller.path,
    status: 200,
    before: undefined,
    after: {
      stage: gs.stage,
      input,
      outcome: out.outcome,
      ...(out.errorId ? { scriptErrorId: out.errorId } : {}),
    },
    at: caller.at,
  });
  return answer;
}
