// What every role's routes and services are built from: settings, the store, a clock, a logger, compute
// threads and the metrics.
import type { FastifyBaseLogger } from 'fastify';
import type { GameChanges } from './game-changes.js';
import type { Metrics } from './metrics/metrics.js';
import type { DocumentCompute } from './nosql/compute-tasks.js';
import type { Settings } from './settings.js';
import type { Store } from './store/db.js';
import type { ScriptRunner } from './types/script-runner.js';

export interface Context {
  settings: Settings;
  store: Store;
  /** Epoch milliseconds; tests replace it to control time. */
  clock: () => number;
  log: FastifyBaseLogger;
  /** Where work that grows with a request's input runs (compute/): off the event loop when it is large. */
  compute: DocumentCompute;
  /** This server's Prometheus registry and instruments (one per server: tests build several in one process). */
  metrics: Metrics;
  /** Games changed by a cluster's replica applier; caches keyed by game subscribe (absent in unit contexts). */
  gameChanges?: GameChanges;
  /** Cloud Code's sandbox (the nosql role's runtime requests run scripts with it). */
  scripts?: ScriptRunner;
}
