// Background chores of a server process (purges of expired rows and files) on an unref'd interval.
import type { FastifyBaseLogger } from 'fastify';

/** Runs `task` every `intervalMs`, never two at once; unref'd so that it never keeps the process alive. */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: () => Promise<number>,
  log: FastifyBaseLogger,
): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    task()
      .then((n) => {
        if (n > 0) log.info({ removed: n }, `${name}: purged ${n}`);
      })
      .catch((e: unknown) => log.warn({ err: e }, `${name} failed`))
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
