// A file as the body of one POST, sent as it is read from disk: the imports' upload.
//
// Over node:http, not fetch: Node's fetch (undici) keeps every chunk of a streamed request body until the request
// ends (nodejs/undici#4058, open): a 330 MB file held 330 MB of buffers. node:http writes the file with
// backpressure, so the CLI holds a few chunks whatever the file's size, and waits for the answer without
// fetch's 300 s bound on the server's silence after the last byte (an import's commit can take longer).
import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError } from './io.js';

export interface Answer {
  status: number;
  body: string;
}

/** POSTs `file` to `url`; `onBytes` hears how many bytes have been read into the request so far. */
export function postFile(
  url: string,
  headers: Record<string, string>,
  file: string,
  onBytes: (bytes: number) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers,
    });
    let answered = false;
    request.on('response', (response) => {
      answered = true;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        body += text;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', (e) => reject(failed(target, e)));
    });
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        onBytes(bytes);
        done(null, chunk);
      },
    });
    // The server may answer before it has read the whole body (a bad line, a missing permission) and close the
    // connection: the upload then fails, but the answer is what counts.
    pipeline(createReadStream(file), count, request).catch((e: unknown) => {
      if (!answered) reject(failed(target, e));
    });
  });
}

/** A network or disk failure as one line (ECONNREFUSED, ENOENT), not a stack. */
function failed(target: URL, e: unknown): CliError {
  return new CliError(`the upload to ${target.origin} failed: ${(e as Error).message}`);
}
