// What the event loop and a sandbox thread say to each other (engine-pool.ts, engine-worker.ts).

/** One script to run: everything the sandbox needs, as plain data. */
export interface Job {
  /** `folder/shortCode`, the script's name in stacks and in script.log. */
  name: string;
  source: string;
  /** Spark.getData(): the request, response or input being scripted. */
  data: unknown;
  context: { stage: string; apiKey: string; playerId: string | null };
  /** scriptData and errors already set by earlier scripts of the same request. */
  scriptData: Record<string, unknown>;
  errors: Record<string, unknown>;
  /** The execution is interrupted this long after it starts. */
  timeLimitMs: number;
  /** Epoch ms: set by the thread when the script starts. */
  deadline: number;
  memoryBytes: number;
  /** Most bytes of JSON the scriptData may hold. */
  scriptDataBytes: number;
  /** Most log lines one execution writes; past it lines are counted, not kept. */
  logLines: number;
}

export interface LogLine {
  ts: number;
  level: string;
  log: unknown;
}

export type Outcome = 'ok' | 'error' | 'timeout';

export interface JobResult {
  outcome: Outcome;
  scriptData: Record<string, unknown>;
  errors: Record<string, unknown>;
  logs: LogLine[];
  droppedLogs: number;
  /** An uncaught error: its message, the script and line it was thrown at, and the stack. */
  failure?: { message: string; at: string | null; stack: string };
  ms: number;
}

export type ToWorker = { type: 'run'; id: number; job: Job };

export type FromWorker =
  | { type: 'host'; id: number; seq: number; op: string; args: string }
  /** `last`: the thread ends after this answer (its WebAssembly aborted): it takes no other script. */
  | { type: 'done'; id: number; result: JobResult; last?: boolean }
  /** `snapshot`: the thread runs its executions from a memory snapshot (snapshot.ts), not fresh contexts. */
  | { type: 'ready'; snapshot: boolean };

/**
 * The answer to a host call, posted on the reply port before the thread is woken; or, while the call goes on, a
 * nested execution to run on this thread first (SparkRequests.<Request>.Execute: the request's scripts), which
 * answers with its own `done`.
 */
export type HostReply =
  | { seq: number; ok: true; value: string | undefined }
  | { seq: number; ok: false; error: string }
  | { seq: number; run: { id: number; job: Job } };
