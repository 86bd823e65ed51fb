// The Prometheus metrics of one server: a registry per server instance, plus the process metrics shared by all.
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { observePool } from './pool-metrics.js';

/** Label values of playbase_limit_refusals_total: the limit that refused a request. */
export type LimitClass = 'user' | 'game' | 'runtime' | 'data' | 'config_writes' | 'login';
const LIMIT_CLASSES: readonly LimitClass[] = ['user', 'game', 'runtime', 'data', 'config_writes', 'login'];

/** What a runtime request came to: answered, answered with an `error` object, or refused with an HTTP error. */
export type RuntimeOutcome = 'ok' | 'error' | 'failed';

/** What a Cloud Code run without a client (a system script, a scheduled job) came to. */
export type ScriptRunOutcome = 'ok' | 'error' | 'timeout' | 'failed';

export interface Metrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly httpInFlight: Gauge;
  readonly limitRefusals: Counter<'limit'>;
  readonly runtimeRequests: Counter<'request' | 'stage' | 'outcome'>;
  readonly leaderboardWrites: Counter<'stage'>;
  /** Runs of system scripts and scheduled jobs (src/runtime/script-timers.ts). */
  readonly scriptTimerRuns: Counter<'script' | 'stage' | 'outcome'>;
  readonly exportDuration: Histogram<'kind' | 'outcome'>;
  readonly exportsRunning: Gauge<'kind'>;
  /** The text exposition of this server's metrics and the process's. */
  render(): Promise<string>;
  readonly contentType: string;
}

// Process metrics describe the process, not a server: one set however many servers a process builds (tests build
// dozens). collectDefaultMetrics starts an event-loop delay monitor and a GC observer it never stops, so calling
// it per server would leave one of each running per server ever built. The set is made when the first server is
// built, not at the first scrape: prom-client counts CPU seconds from the moment it starts, so a lazy start left the
// first scrape with the CPU of the scrape alone (often 0 at the kernel's tick granularity).
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

// Seconds. HTTP: the API answers in milliseconds, exports and index builds in seconds to minutes.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const ACQUIRE_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const EXPORT_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800];

type Registers = Registry[];

function httpMetrics(registers: Registers): Pick<Metrics, 'httpDuration' | 'httpInFlight'> {
  return {
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code (GET /metrics itself is not counted)',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    httpInFlight: new Gauge({
      name: 'http_requests_in_flight',
      help: 'HTTP requests received and not yet answered (GET /metrics itself is not counted)',
      registers,
    }),
  };
}

// Label values known in advance start at 0, so that a rate() over them has a baseline before the first event.
function limitRefusalsCounter(registers: Registers): Metrics['limitRefusals'] {
  const counter = new Counter({
    name: 'playbase_limit_refusals_total',
    help: 'Requests refused with 429 by a rate or concurrency limit, or a login throttled, by limit',
    labelNames: ['limit'] as const,
    registers,
  });
  for (const limit of LIMIT_CLASSES) counter.inc({ limit }, 0);
  return counter;
}

function runtimeMetrics(
  registers: Registers,
): Pick<Metrics, 'runtimeRequests' | 'leaderboardWrites' | 'scriptTimerRuns'> {
  const leaderboardWrites = new Counter({
    name: 'playbase_leaderboard_writes_total',
    help: 'Leaderboard entries written (created or changed) by committed LogEventRequests, by stage',
    labelNames: ['stage'] as const,
    registers,
  });
  for (const stage of ['live', 'preview']) leaderboardWrites.inc({ stage }, 0);
  const runtimeRequests = new Counter({
    name: 'playbase_runtime_requests_total',
    help: 'Runtime (requests API) calls by request type, stage and outcome (ok, error, failed)',
    labelNames: ['request', 'stage', 'outcome'] as const,
    registers,
  });
  const scriptTimerRuns = new Counter({
    name: 'playbase_script_timer_runs_total',
    help: 'Cloud Code runs without a client (GS_MINUTE, GS_HOURLY, GS_DAILY, GS_GAME_PUBLISH, scheduler) by script, stage and outcome (ok, error, timeout, failed)',
    labelNames: ['script', 'stage', 'outcome'] as const,
    registers,
  });
  return { runtimeRequests, leaderboardWrites, scriptTimerRuns };
}

function exportMetrics(registers: Registers): Pick<Metrics, 'exportDuration' | 'exportsRunning'> {
  const exportsRunning = new Gauge({
    name: 'playbase_exports_running',
    help: 'Export jobs running now, by kind',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of ['mongo', 'data']) exportsRunning.set({ kind }, 0);
  const exportDuration = new Histogram({
    name: 'playbase_export_duration_seconds',
    help: 'Export jobs by kind (mongo, data) and outcome (succeeded, failed), with their duration',
    labelNames: ['kind', 'outcome'] as const,
    buckets: EXPORT_BUCKETS,
    registers,
  });
  return { exportDuration, exportsRunning };
}

/** The metrics of a server whose store is `pool` (its gauges are read from the pool at each scrape). */
export function createMetrics(pool: pg.Pool): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const perProcess = processMetrics();
  observePool(pool, registry, ACQUIRE_BUCKETS);
  return {
    registry,
    ...httpMetrics(registers),
    limitRefusals: limitRefusalsCounter(registers),
    ...runtimeMetrics(registers),
    ...exportMetrics(registers),
    render: () => Registry.merge([perProcess, registry]).metrics(),
    contentType: registry.contentType,
  };
}
