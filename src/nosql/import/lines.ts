// An import's request body as numbered lines of text: counted against the size limit, un-gzipped, split, checked
// to be UTF-8. Pulled one chunk at a time, so memory holds one line and a few stream buffers, whatever the file.
import { finished, pipeline, type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { errors } from '../../errors.js';
import { importErrors } from './errors.js';

export interface Line {
  /** 1 for the first line of the file. */
  number: number;
  text: string;
}

export interface BodyOptions {
  gzip: boolean;
  /** Bytes of the body as sent (compressed or not); past it, 413. */
  maxBytes: number;
  /** Bytes of one line, without its newline; past it, 400 naming the line. */
  maxLineBytes: number;
}

/** Passes the body through, failing with 413 once more than `max` bytes came; `seen()` tells how many came. */
function byteLimit(max: number): Transform & { seen(): number } {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > max) done(errors.bodyTooLarge(max));
      else done(null, chunk);
    },
  });
  return Object.assign(counter, { seen: () => bytes });
}

/**
 * zlib's failures (not gzip, cut short) as 400 IMPORT_BAD_ENCODING, or IMPORT_EMPTY_BODY when no byte came (zero
 * bytes are not gzip, but the mistake is the missing file); anything else as it is.
 */
export function asBodyError(e: unknown, received: number): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('Z_')) return e;
  return received === 0 ? importErrors.emptyBody() : importErrors.badEncoding((e as Error).message);
}

// pipeline's callback only keeps a failure from being unhandled: the same error reaches whoever reads the stream.
const ignore = () => {};

export interface Body {
  /** The bytes after the size limit (and gzip). */
  stream: Readable;
  /** Bytes of the body received so far. */
  received(): number;
  /** Ends the stream with `error` (none: quietly); the request is left open, so that an answer can still be sent. */
  stop(error?: Error): void;
}

/**
 * The request body through the size limit (and gzip). The request is piped, not joined in a pipeline: a
 * failure downstream (413, a bad line, a timeout) must not destroy the socket before the answer is written.
 * The request's own failure (the client gone) ends the stream.
 */
export function bodyStream(raw: Readable, options: BodyOptions): Body {
  const limit = byteLimit(options.maxBytes);
  // Whoever reads the stream sees its failure; these listeners keep one nobody reads (or a second one that zlib
  // reports after the first) from being unhandled.
  limit.on('error', ignore);
  finished(raw, (error) => {
    if (error) limit.destroy(error);
  });
  raw.pipe(limit);
  const gunzip = options.gzip ? createGunzip().on('error', ignore) : undefined;
  const stream = gunzip ? pipeline(limit, gunzip, ignore) : limit;
  return { stream, received: limit.seen, stop: (error) => limit.destroy(error) };
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/** Numbered lines of `chunks`: the last one may lack its newline; a trailing CR is dropped (CRLF files). */
export async function* readLines(chunks: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let pending = 0;
  let number = 0;
  const take = (tail: Buffer): Line => {
    number += 1;
    let bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    pending = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    try {
      return { number, text: decoder.decode(bytes) };
    } catch {
      throw importErrors.badRecord(number, 'not valid UTF-8');
    }
  };
  const tooLong = () =>
    importErrors.badRecord(number + 1, `longer than ${maxLineBytes} bytes (the limit of one line)`);
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      if (pending + nl - start > maxLineBytes) throw tooLong();
      yield take(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > maxLineBytes) throw tooLong();
      parts.push(chunk.subarray(start));
    }
  }
  if (pending > 0) yield take(Buffer.alloc(0));
}
