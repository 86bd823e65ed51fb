// The embedded store's thread: one PGlite on the data folder, answering the raw wire-protocol bytes it is sent.
import type { PGliteOptions } from '@electric-sql/pglite';

/** What the main thread sends: protocol bytes to answer, or the request to close. */
export type ToWorker = { kind: 'exec'; id: number; bytes: ArrayBuffer } | { kind: 'close' };

/** What the thread answers: the protocol bytes of one exec, or a failure that leaves PGlite unusable. */
export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'answer'; id: number; chunks: ArrayBuffer[] }
  | { kind: 'failed'; id: number; message: string }
  | { kind: 'closed' };

/** What PGlite would otherwise load and compile in each thread (about half of its start). */
export type PgliteArtifacts = Required<
  Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule' | 'fsBundle'>
>;

export interface WorkerOptions extends PgliteArtifacts {
  pgdata: string;
  /** The absolute path of PGlite's CommonJS entry. */
  pgliteEntry: string;
}

/**
 * The thread's code, run with `eval: true`. It is plain JavaScript in a string so that one code path starts the
 * same under tsx and vitest as from the built dist/ (Node 20 applies no TypeScript loader to a worker's entry
 * module, and the build copies no .js sources); it is small, and its messages are typed above.
 *
 * Messages are answered one at a time, in order. PGlite writes its answer into memory it reuses, so each chunk
 * is copied into its own buffer, which is then transferred, not copied again. A startup packet (first byte 0:
 * its length is below 16 MB) is answered by execProtocolRaw's own path, which returns it in one piece.
 */
export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pgdata, pgliteEntry, ...artifacts } = workerData;
const { PGlite } = require(pgliteEntry);

async function answer(db, bytes) {
  if (bytes[0] === 0) return [(await db.execProtocolRaw(bytes)).slice().buffer];
  const chunks = [];
  await db.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(data.slice().buffer) });
  return chunks;
}

async function main() {
  const db = await PGlite.create(pgdata, { relaxedDurability: false, ...artifacts });
  let queue = Promise.resolve();
  parentPort.on('message', (message) => {
    queue = queue.then(async () => {
      if (message.kind === 'close') {
        await db.close();
        parentPort.postMessage({ kind: 'closed' });
        parentPort.close();
        return;
      }
      try {
        const chunks = await answer(db, new Uint8Array(message.bytes));
        parentPort.postMessage({ kind: 'answer', id: message.id, chunks }, chunks);
      } catch (e) {
        parentPort.postMessage({ kind: 'failed', id: message.id, message: String(e && e.message || e) });
      }
    });
  });
  parentPort.postMessage({ kind: 'ready' });
}

// A failure to open ends the thread with an 'error' event, which the host reports to whoever waits.
main().catch((e) => { throw e; });
`;
