// The database pool's metrics: its connection counts read at each scrape, and the time callers wait for a connection.
import type pg from 'pg';
import { Gauge, Histogram, type Registry } from 'prom-client';

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: unknown) => void;
type Connect = (this: pg.Pool, cb?: ConnectCallback) => Promise<pg.PoolClient> | undefined;

// The histogram a pool's waits go to: the latest server built on the pool (one at a time) owns its figures.
const acquireHistograms = new WeakMap<pg.Pool, Histogram>();

/**
 * Every checkout goes through pool.connect(): pg-pool's own query() and PGlite's pool call `this.connect`, and so
 * does withTransaction. Timing it there measures the wait of every query without touching a call site: the wait
 * for a free connection, or for a new one to connect.
 */
function timeCheckouts(pool: pg.Pool): void {
  if (acquireHistograms.has(pool)) return;
  const original = pool.connect as unknown as Connect;
  const timed: Connect = function (cb) {
    const histogram = acquireHistograms.get(pool);
    const stop = histogram?.startTimer();
    const end = () => void stop?.();
    if (typeof cb === 'function') {
      return original.call(this, (err, client, done) => {
        end();
        cb(err, client, done);
      });
    }
    const pending = original.call(this) as Promise<pg.PoolClient>;
    pending.then(end, end);
    return pending;
  };
  pool.connect = timed as unknown as pg.Pool['connect'];
}

export function observePool(pool: pg.Pool, registry: Registry, buckets: number[]): void {
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('playbase_db_pool_connections', 'Open connections of the database pool', () => pool.totalCount);
  gauge(
    'playbase_db_pool_idle_connections',
    'Open connections of the pool not checked out',
    () => pool.idleCount,
  );
  gauge(
    'playbase_db_pool_waiting_clients',
    'Callers waiting for a connection of the pool',
    () => pool.waitingCount,
  );
  gauge(
    'playbase_db_pool_max_connections',
    'The most connections the pool opens',
    () => pool.options.max ?? 10,
  );
  const histogram = new Histogram({
    name: 'playbase_db_pool_acquire_seconds',
    help: 'Time from asking the pool for a connection to getting one (or failing), connecting included',
    buckets,
    registers,
  });
  timeCheckouts(pool);
  acquireHistograms.set(pool, histogram);
}
