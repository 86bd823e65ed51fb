// One HTTPS POST with a bounded wait and a bounded answer, trusting an extra CA when given (loopback test peers).
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';

export interface HttpsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpsPostOptions {
  ca?: string | Buffer | undefined;
  timeoutMs: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** POSTs `body` to an https URL; rejects on network failure, timeout or an oversized answer. */
export function postHttps(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: HttpsPostOptions,
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    // Credentials travel in these requests: never in clear text.
    if (target.protocol !== 'https:') {
      reject(new Error(`refusing a non-https URL: ${target.origin}`));
      return;
    }
    // agent: false → a fresh connection, nothing kept alive after a rare test send.
    const req = request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ...(options.ca ? { ca: options.ca } : {}),
    });
    let settled = false;
    const settle = (err: Error | undefined, answer?: HttpsAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err || !answer) {
        req.destroy();
        reject(err ?? new Error('connection closed before the answer'));
      } else resolve(answer);
    };
    const timer = setTimeout(
      () => settle(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on('error', (err) => settle(err));
    req.on('close', () => settle(new Error('connection closed before the answer')));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) settle(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
      res.on('error', (err) => settle(err));
    });
    req.end(body);
  });
}
