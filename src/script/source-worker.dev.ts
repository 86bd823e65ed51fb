// Development only (never built): starts a sandbox thread from the TypeScript sources, as compute's
// source-worker.dev.ts does for compute threads, with the thread's workerData and transfer list.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startSourceWorker(entry: URL, options: WorkerOptions = {}): Worker {
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const source = `
    import(${JSON.stringify(pathToFileURL(api).href)})
      .then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}));`;
  return new Worker(source, { ...options, eval: true });
}
