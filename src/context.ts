// What every role's routes and services are built from: settings, the store, a clock and a logger.
import type { FastifyBaseLogger } from 'fastify';
import type { Settings } from './settings.js';
import type { Store } from './store/db.js';

export interface Context {
  settings: Settings;
  store: Store;
  /** Epoch milliseconds; tests replace it to control time. */
  clock: () => number;
  log: FastifyBaseLogger;
}
