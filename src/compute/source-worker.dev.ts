// Development only (never built): starts a compute thread from the TypeScript sources, as `npm start` and the
// tests run them. tsx compiles the thread's modules as it compiled the main thread's; `execArgv: ['--import',
// 'tsx']` does not reach a worker's entry on Node 20, so the entry is loaded through tsx's `tsImport`.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export function startSourceWorker(entry: URL): Worker {
  // tsx's ESM entry (require() would give its CommonJS one, which cannot start the loader from a worker).
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const source = `
    import(${JSON.stringify(pathToFileURL(api).href)})
      .then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}));`;
  return new Worker(source, { eval: true });
}
