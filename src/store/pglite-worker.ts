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
  /** The thread's nice value (src/thread-priority.ts). */
  niceness: number;
  /**
   * A fresh cluster's files as one tar (PGlite's dumpDataDir), kept beside the installed packages: a new data
   * folder is filled from it instead of running initdb. Unset: no template is read or written.
   */
  template?: string;
}

/**
 * The thread's code, run with `eval: true`. It is plain JavaScript in a string so that one code path starts the
 * same under tsx and vitest as from the built dist/ (Node 20 applies no TypeScript loader to a worker's entry
 * module, and the build copies no .js sources); it is small, and its messages are typed above.
 *
 * Messages are answered one at a time, in order. PGlite writes its answer into memory it reuses, so each chunk
 * is copied into its own buffer, which is then transferred, not copied again. A startup packet (first byte 0:
 * its length is below 16 MB) is answered by execProtocolRaw's own path, which returns it in one piece. An answer
 * that shows the session broken (a statement left without ReadyForQuery, on which pg would wait forever, or the
 * leak warnings of an error that escaped) is reported as a failure: the host then reopens PGlite.
 */
export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pgdata, pgliteEntry, niceness, template, ...artifacts } = workerData;
// Below the event loop's priority (Linux sets it per thread): on a busy core /healthz still answers at once.
if (process.platform === 'linux') try { require('node:os').setPriority(niceness); } catch {}
const { PGlite } = require(pgliteEntry);

// Messages that end a round trip: the answer must then end with ReadyForQuery ('Z').
const QUERY = 0x51, SYNC = 0x53, READY = 0x5a, NOTICE = 0x4e;
// What PostgreSQL's resource owners warn of only when an error escaped its normal path (seen in PGlite after
// a regular expression too complex to compile: the error is lost and the session is left inconsistent).
const LEAK = /resource was not closed|reference leak|refcount leak|still active/;

/** The message types of a protocol byte stream held in chunks, with the text of each notice. */
function* messages(chunks) {
  const all = chunks.map((c) => new Uint8Array(c));
  let index = 0, offset = 0;
  const byteAt = (at) => {
    while (index < all.length && at - offset >= all[index].length) offset += all[index++].length;
    return index < all.length ? all[index][at - offset] : undefined;
  };
  for (let at = 0; byteAt(at) !== undefined; ) {
    const type = byteAt(at);
    const length = ((byteAt(at + 1) << 24) | (byteAt(at + 2) << 16) | (byteAt(at + 3) << 8) | byteAt(at + 4)) >>> 0;
    let text = '';
    if (type === NOTICE) for (let i = at + 5; i < at + 1 + length; i++) text += String.fromCharCode(byteAt(i));
    yield { type, text };
    at += 1 + length;
  }
}

/** Why an answer shows a PGlite session that can no longer be trusted, or undefined. */
function brokenAnswer(bytes, chunks) {
  let needsReady = false;
  for (const m of messages([bytes.buffer])) if (m.type === QUERY || m.type === SYNC) needsReady = true;
  let last;
  for (const m of messages(chunks)) {
    if (m.type === NOTICE && m.text.split(String.fromCharCode(0)).includes('C01000') && LEAK.test(m.text))
      return 'a statement failed inside PGlite';
    last = m.type;
  }
  if (needsReady && last !== READY) return 'PGlite answered without ending the statement';
  return undefined;
}

async function answer(db, bytes) {
  if (bytes[0] === 0) return [(await db.execProtocolRaw(bytes)).slice().buffer];
  const chunks = [];
  await db.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(data.slice().buffer) });
  const broken = brokenAnswer(bytes, chunks);
  if (broken) throw new Error(broken);
  return chunks;
}

const fs = require('node:fs');
const isFresh = () => { try { return fs.readdirSync(pgdata).length === 0; } catch { return true; } };

// A new data folder: initdb takes seconds (about 3 of a 9 s first start on the 2-core test machine), filling the
// folder from the template of a fresh cluster takes about one. The template is written by the first new folder
// (before anything else is written to it: it is initdb's output and nothing more), through a temporary file
// renamed into place, so another process never reads half of it. A template that fails to load is removed and
// the folder emptied: initdb then runs as without one.
async function open() {
  const options = { relaxedDurability: false, ...artifacts };
  const fresh = template !== undefined && isFresh();
  if (fresh && fs.existsSync(template)) {
    try {
      return await PGlite.create(pgdata, { ...options, loadDataDir: new Blob([fs.readFileSync(template)]) });
    } catch {
      try { fs.rmSync(template, { force: true }); } catch {}
      // The folder was new (nothing of the data folder's own is in it): what the failed load left goes with it.
      try { fs.rmSync(pgdata, { recursive: true, force: true }); } catch {}
    }
  }
  const db = await PGlite.create(pgdata, options);
  if (fresh) {
    try {
      const tar = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
      fs.mkdirSync(require('node:path').dirname(template), { recursive: true });
      const temporary = template + '.' + process.pid + '.' + Date.now() + '.tmp';
      fs.writeFileSync(temporary, tar, { mode: 0o600 });
      fs.renameSync(temporary, template);
    } catch {}
  }
  return db;
}

async function main() {
  const db = await open();
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
