// Zip files of Cloud Code in the original platform's export layout (`event/winRace.js`, `modules/UTILS.js`...):
// written with fflate, read with yauzl under bounds that a hostile zip cannot pass (entries, sizes, names).
import type { Readable } from 'node:stream';
import { zipSync } from 'fflate';
import yauzl from 'yauzl';
import type { CloudScript } from './config-types.js';
import { SCRIPT_LIMITS } from './config-types.js';
import { configErrors } from './errors.js';

/**
 * What an import zip may hold: its own size (the body limit), entries (folders included), the inflated bytes of
 * all entries together. An entry larger than a script may be is never inflated: it is refused by name.
 */
export const ZIP_LIMITS = {
  zipBytes: 4 * 1024 * 1024,
  entries: 2000,
  totalBytes: 8 * 1024 * 1024,
} as const;

/** Every export carries this modification time, so that the same scripts always give the same bytes. */
const FIXED_MTIME = new Date('2020-01-01T00:00:00Z');

/** The zip of `scripts`: `<folder>/<shortCode>.js`, only folders that hold scripts, deflated. */
export function writeScriptZip(scripts: readonly CloudScript[]): Uint8Array {
  const encoder = new TextEncoder();
  const files: Record<string, Uint8Array> = {};
  for (const s of scripts) files[`${s.folder}/${s.shortCode}.js`] = encoder.encode(s.script);
  return zipSync(files, { level: 6, mtime: FIXED_MTIME });
}

/** One file of an import zip: its bytes, or why it was not read (too large to be a script). */
export interface ZipFile {
  name: string;
  bytes?: Buffer;
  tooLarge?: number;
}

const invalid = (message: string) => configErrors.zipInvalid(message, [{ field: 'body', message }]);

/** A name that could write outside a folder: absolute, a drive, `..`, a backslash, a NUL or a control character. */
function unsafeName(name: string): boolean {
  return (
    name.startsWith('/') ||
    /^[A-Za-z]:/.test(name) ||
    name.includes('\\') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    /[\u0000-\u001f]/.test(name) ||
    name.split('/').includes('..')
  );
}

function open(zip: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      zip,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true },
      (err, file) => (err ? reject(invalid(`not a readable zip: ${err.message}`)) : resolve(file)),
    );
  });
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    // validateEntrySizes already stops an entry at its declared size; this keeps the bound without trusting it.
    if (size > limit) {
      stream.destroy();
      throw new Error(`inflates past ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The files of an import zip (folders left out), in the zip's order. SCRIPT_ZIP_INVALID when the bytes are not a
 * zip, it has more than ZIP_LIMITS.entries entries, a name is unsafe (`../`, absolute...), an entry is encrypted
 * or compressed with other than deflate, inflates to more than it declares, or the entries together declare more
 * than ZIP_LIMITS.totalBytes. Checked from the central directory before anything is inflated.
 */
export async function readScriptZip(zip: Buffer): Promise<ZipFile[]> {
  if (zip.length > ZIP_LIMITS.zipBytes) throw invalid(`the zip is larger than ${ZIP_LIMITS.zipBytes} bytes`);
  const file = await open(zip);
  try {
    if (file.entryCount > ZIP_LIMITS.entries) {
      throw invalid(`${file.entryCount} entries; an import holds at most ${ZIP_LIMITS.entries}`);
    }
    const entries = await listEntries(file);
    let declared = 0;
    for (const e of entries) {
      if (unsafeName(e.fileName)) throw invalid(`unsafe entry name: ${JSON.stringify(e.fileName)}`);
      if (e.isEncrypted()) throw invalid(`${e.fileName} is encrypted`);
      if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
        throw invalid(`${e.fileName}: compression method ${e.compressionMethod} (stored or deflate only)`);
      }
      if (!e.fileName.endsWith('/')) declared += Math.min(e.uncompressedSize, SCRIPT_LIMITS.scriptBytes + 1);
    }
    if (declared > ZIP_LIMITS.totalBytes) {
      throw invalid(`the entries inflate to more than ${ZIP_LIMITS.totalBytes} bytes`);
    }
    const files: ZipFile[] = [];
    for (const e of entries) {
      if (e.fileName.endsWith('/')) continue;
      if (e.uncompressedSize > SCRIPT_LIMITS.scriptBytes) {
        files.push({ name: e.fileName, tooLarge: e.uncompressedSize });
        continue;
      }
      try {
        const stream = await file.openReadStreamPromise(e);
        files.push({ name: e.fileName, bytes: await readAll(stream, SCRIPT_LIMITS.scriptBytes) });
      } catch (err) {
        throw invalid(`${e.fileName}: ${(err as Error).message}`);
      }
    }
    return files;
  } finally {
    file.close();
  }
}

/** The central directory's entries, read one by one (lazyEntries); an unsafe name fails here already. */
function listEntries(file: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    file.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      file.readEntry();
    });
    file.on('end', () => resolve(entries));
    file.on('error', (err: Error) => reject(invalid(err.message)));
    file.readEntry();
  });
}
