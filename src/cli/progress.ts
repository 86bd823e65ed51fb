// Long transfers with a progress bar (cli-progress) on a terminal; silent when stderr is not one, or with --json.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import cliProgress from 'cli-progress';
import type { CliIo } from './io.js';

/** A bar on stderr counting bytes, or nothing when no person watches. */
export function byteBar(io: CliIo, show: boolean, total: number, label: string) {
  if (!show || !io.stderr.isTTY) return { update: (_bytes: number) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} bytes | {eta_formatted} left`,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0);
  return { update: (bytes: number) => bar.update(bytes), stop: () => bar.stop() };
}

/**
 * Streams an answer's body into `file` with a bar of `total` bytes (what the server announced). The bytes go to
 * a temporary file renamed at the end, so an interrupted download never leaves a truncated file under the name.
 */
export async function downloadTo(
  io: CliIo,
  response: Response,
  file: string,
  total: number,
  show: boolean,
): Promise<number> {
  if (!response.body) throw new Error('the download has no body');
  const bar = byteBar(io, show, total, 'downloading');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      bar.update(bytes);
      done(null, chunk);
    },
  });
  const partial = `${file}.part`;
  try {
    await pipeline(
      Readable.fromWeb(response.body as unknown as WebReadableStream),
      count,
      createWriteStream(partial, { mode: 0o600 }),
    );
    await rename(partial, file);
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  } finally {
    bar.stop();
  }
  return bytes;
}
