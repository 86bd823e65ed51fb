// The Cloud Code core: runs one script of a game's stage in the sandbox and settles it. Its writes commit when it
// ends well and roll back when it throws or runs out of time; its log lines, and its uncaught error with the
// script name, line and stack, go to the stage's `script.log` collection either way.
import { createCollection } from '../nosql/collections.js';
import { insertDocuments } from '../nosql/documents.js';
import type { GameScope } from '../nosql/scope.js';
import { type Doc, fromWire, ObjectId, type Value } from '../query/values.js';
import type { ScriptCall, ScriptOutcome, ScriptRunner } from '../types/script-runner.js';
import { EnginePool, type Nest } from './engine-pool.js';
import type { JobResult, LogLine } from './protocol.js';
import { type ScriptEnv, Session } from './session.js';
import { ScriptCaches, ScriptLocks } from './shared-state.js';

export interface ScriptLimits {
  timeLimitMs: number;
  memoryMb: number;
  threads: number;
  /** Scripts waiting for a thread at most; past it a script fails at once (BUSY). */
  maxQueued: number;
  scriptDataBytes: number;
  logLines: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  timeLimitMs: 2000,
  memoryMb: 64,
  threads: 4,
  maxQueued: 1000,
  scriptDataBytes: 1024 * 1024,
  logLines: 1000,
};

export const SCRIPT_LOG = 'script.log';

export function createScriptEngine(
  env: Omit<ScriptEnv, 'caches' | 'locks'>,
  limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS,
): ScriptRunner {
  const full: ScriptEnv = {
    ...env,
    caches: new ScriptCaches(),
    locks: new ScriptLocks(),
    timeLimitMs: limits.timeLimitMs,
    nested: (parent, nest, call) => execute(call, { session: parent, nest }),
  };
  const pool = new EnginePool(limits.threads, limits.maxQueued, limits.memoryMb * 1024 * 1024);
  // script.log is recorded as a runtime collection once per game and stage in this process.
  const logged = new Set<string>();

  async function writeLog(gs: GameScope, docs: Doc[]): Promise<void> {
    if (docs.length === 0) return;
    const key = `${gs.stage}\u0000${gs.game}`;
    if (!logged.has(key)) {
      await createCollection(env.pool, gs, SCRIPT_LOG, 'runtime', env.clock());
      logged.add(key);
    }
    await insertDocuments(env.pool, { ...gs, collection: SCRIPT_LOG }, docs);
  }

  function logDocs(call: ScriptCall, result: JobResult, errorId: ObjectId | undefined): Doc[] {
    const script = `${call.script.folder}/${call.script.shortCode}`;
    const base = (line: LogLine): Doc => ({
      _id: new ObjectId(),
      ts: new Date(line.ts),
      level: line.level,
      script,
      playerId: call.playerId,
      log: toValue(line.log),
    });
    const docs = result.logs.map(base);
    if (result.droppedLogs > 0) {
      docs.push(base({ ts: Date.now(), level: 'WARN', log: `${result.droppedLogs} more log lines dropped` }));
    }
    if (errorId && result.failure) {
      docs.push({
        ...base({ ts: Date.now(), level: 'ERROR', log: result.failure.message }),
        _id: errorId,
        error: result.outcome === 'timeout' ? 'TIMEOUT' : 'ERROR',
        at: result.failure.at,
        stack: result.failure.stack,
      });
    }
    return docs;
  }

  /** Runs one script; `within`: nested in a host call of another execution, on its thread and transaction. */
  async function execute(
    call: ScriptCall,
    within?: { session: Session; nest: Nest },
  ): Promise<ScriptOutcome> {
    const session = within
      ? await Session.nested(within.session, call.modules)
      : new Session(full, call.gs, call.modules);
    const job = {
      name: `${call.script.folder}/${call.script.shortCode}`,
      source: call.script.script,
      data: call.data,
      context: { stage: call.gs.stage, apiKey: call.gs.game, playerId: call.playerId },
      scriptData: call.scriptData,
      errors: call.errors,
      timeLimitMs: limits.timeLimitMs,
      deadline: 0,
      memoryBytes: limits.memoryMb * 1024 * 1024,
      scriptDataBytes: limits.scriptDataBytes,
      logLines: limits.logLines,
    };
    let result: JobResult;
    const host = (op: string, args: string, nest: Nest) => session.handle(op, args, nest);
    try {
      result = await (within ? within.nest(job, host) : pool.run(call.gs.game, job, host));
    } catch (e) {
      result = failed((e as Error).message);
    }
    try {
      await session.finish(result.outcome === 'ok');
    } catch (e) {
      result = failed(`the script's writes could not be committed: ${(e as Error).message}`);
    }
    const errorId = result.outcome === 'ok' ? undefined : new ObjectId();
    const docs = logDocs(call, result, errorId);
    // A nested execution's entries wait for the outermost one: its connection may be the store's only one.
    if (within) session.root.deferredLogs.push(...docs);
    else await writeLog(call.gs, [...docs, ...session.deferredLogs]).catch(() => {});
    return {
      outcome: result.outcome,
      scriptData: result.outcome === 'ok' ? result.scriptData : call.scriptData,
      errors: result.outcome === 'ok' ? result.errors : call.errors,
      ...(errorId ? { errorId: errorId.toHexString() } : {}),
      ...(result.failure ? { failure: result.failure } : {}),
      logs: result.logs,
      calls: session.calls,
      ms: result.ms,
    };
  }

  return {
    run: (call: ScriptCall) => execute(call),
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}

function failed(message: string): JobResult {
  return {
    outcome: 'error',
    scriptData: {},
    errors: {},
    logs: [],
    droppedLogs: 0,
    failure: { message, at: null, stack: '' },
    ms: 0,
  };
}

/** A log value as stored: JSON as it came, with keys MongoDB would refuse kept as text. */
function toValue(v: unknown): Value {
  try {
    return fromWire(v ?? null);
  } catch {
    return JSON.stringify(v);
  }
}
