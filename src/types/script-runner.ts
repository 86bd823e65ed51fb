// What the runtime asks of Cloud Code (src/script/ answers it; server.ts hands the one to the other), so that
// the runtime room never imports the script room, which reads documents through the nosql room.
import type { CloudScript } from './config.js';

export interface ScriptCall {
  gs: { game: string; stage: 'live' | 'preview' };
  /** A configured script, or an admin snippet's (folder `snippets`: src/snippets/, run with no player). */
  script: Omit<CloudScript, 'folder'> & { folder: CloudScript['folder'] | 'snippets' };
  /** The stage's modules by short code (require / requireOnce). */
  modules: ReadonlyMap<string, string>;
  /** Spark.getData(). */
  data: unknown;
  playerId: string | null;
  /** scriptData and errors set by the scripts of the same request that ran before. */
  scriptData: Record<string, unknown>;
  errors: Record<string, unknown>;
}

export interface ScriptLogLine {
  ts: number;
  level: string;
  log: unknown;
}

export interface ScriptOutcome {
  outcome: 'ok' | 'error' | 'timeout';
  scriptData: Record<string, unknown>;
  errors: Record<string, unknown>;
  /** The script.log entry of an uncaught error or a timeout. */
  errorId?: string;
  /** An uncaught error: its message, the `script:line` it was thrown at, and the stack. */
  failure?: { message: string; at: string | null; stack: string };
  logs: ScriptLogLine[];
  /** The store calls the script made, in order (the trace). */
  calls: { op: string; ms: number }[];
  ms: number;
}

export interface ScriptRunner {
  run(call: ScriptCall): Promise<ScriptOutcome>;
  /** Starts the sandbox threads now; resolves when they are ready. */
  warm(): Promise<void>;
  close(): Promise<void>;
}
