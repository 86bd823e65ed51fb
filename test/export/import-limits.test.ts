// An import over a real connection: its own receiving bound instead of the server-wide request timeout, the body
// limit, a client that goes away, and one import per game and stage at a time; nothing written by any that fails.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Headers, type ImportWorld, startImportWorld } from './import-world.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { code?: string; message?: string; imported?: number };
}

/** The first answer on the socket: status, headers and JSON body (by Content-Length). */
function answerOf(socket: Socket): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let text = '';
    let settled = false;
    const settle = () => {
      const end = text.indexOf('\r\n\r\n');
      if (settled || end < 0) return;
      const [status = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const body = Buffer.from(text.slice(end + 4));
      const length = Number(headers['content-length'] ?? 0);
      if (body.length < length) return;
      settled = true;
      const json = body.subarray(0, length).toString('utf8');
      resolve({ status: Number(status.split(' ')[1]), headers, body: JSON.parse(json || 'null') });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      settle();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      settle();
      if (!settled) reject(new Error(`closed without an answer: ${text.slice(0, 200)}`));
    });
  });
}

interface Upload {
  socket: Socket;
  answer: Promise<Answer>;
  /** Sends one chunk of the chunked body. */
  send(text: string): void;
  end(): void;
}

function upload(
  url: string,
  path: string,
  headers: Headers,
  extra = 'Transfer-Encoding: chunked',
  method = 'POST',
): Upload {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const answer = answerOf(socket);
  const type = method === 'POST' ? 'application/x-ndjson' : 'application/json';
  const head = Object.entries({ ...headers, 'content-type': type }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\n${[...head, extra].join('\r\n')}\r\n\r\n`);
  return {
    socket,
    answer,
    send: (text) => {
      if (!socket.destroyed) socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
    },
    end: () => {
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    },
  };
}

const line = (i: number, pad = '') =>
  `${JSON.stringify({ collection: 'player', document: { _id: `p${i}`, n: i, pad } })}\n`;

describe(`import over a real connection (${storeKind}): request timeout 1 s, import bound 3 s, body limit 4096 bytes`, () => {
  let w: ImportWorld;
  let url: string;
  let apiKey: string;
  let jwt: Headers;
  const path = () => `/preview/restv2/game/${apiKey}/mongo/import`;
  const players = async () =>
    Number(
      (
        await w.server.store.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM nosql_documents WHERE game_id = $1 AND collection = 'player'`,
          [apiKey],
        )
      ).rows[0]?.n,
    );

  beforeAll(async () => {
    w = await startImportWorld({
      PLAYBASE_HTTP_HEADERS_TIMEOUT_MS: '500',
      PLAYBASE_HTTP_REQUEST_TIMEOUT_MS: '1000',
      PLAYBASE_IMPORT_REQUEST_TIMEOUT_MS: '3000',
      PLAYBASE_IMPORT_MAX_BYTES: '4096',
    });
    url = await w.server.listen();
    apiKey = (await w.newGame('limits')).apiKey;
    jwt = await w.jwt(apiKey);
  }, 60_000);
  afterAll(async () => w?.close());

  it('an upload that takes 2 s (past the 1 s request timeout, within the import bound) → 200, every line in', async () => {
    const up = upload(url, path(), jwt);
    for (let i = 0; i < 10; i++) {
      up.send(line(i));
      await sleep(200);
    }
    up.end();
    const answer = await up.answer;
    expect([answer.status, answer.body.imported]).toEqual([200, 10]);
    expect(await players()).toBe(10);
  });

  it('an upload still going after the 3 s import bound → 408 REQUEST_TIMEOUT, connection closed, nothing written', async () => {
    const before = await players();
    const up = upload(url, path(), jwt);
    const started = Date.now();
    const trickle = (async () => {
      for (let i = 100; i < 140 && !up.socket.destroyed; i++) {
        up.send(line(i));
        await sleep(100);
      }
    })();
    const answer = await up.answer;
    await trickle;
    expect(answer.status).toBe(408);
    expect(answer.body.code).toBe('REQUEST_TIMEOUT');
    expect(answer.headers.connection).toBe('close');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(await players()).toBe(before);
  });

  it('any other route keeps the 1 s request timeout', async () => {
    const up = upload(url, `/preview/restv2/game/${apiKey}/data/Note/x`, jwt, 'Content-Length: 100', 'PUT');
    up.socket.write('{"data":');
    const answer = await up.answer;
    expect([answer.status, answer.body.code]).toEqual([408, 'REQUEST_TIMEOUT']);
  });

  it('a Content-Length past PLAYBASE_IMPORT_MAX_BYTES → 413 before the body is read', async () => {
    const up = upload(url, path(), jwt, 'Content-Length: 5000');
    const answer = await up.answer;
    expect([answer.status, answer.body.code, answer.headers.connection]).toEqual([
      413,
      'BODY_TOO_LARGE',
      'close',
    ]);
  });

  it('a chunked body growing past the limit → 413 once it does; nothing written', async () => {
    const before = await players();
    const up = upload(url, path(), jwt);
    for (let i = 200; i < 260 && !up.socket.destroyed; i++) {
      up.send(line(i, 'x'.repeat(100)));
      await sleep(5);
    }
    const answer = await up.answer;
    expect([answer.status, answer.body.code]).toEqual([413, 'BODY_TOO_LARGE']);
    expect(answer.body.message).toBe('Request body is larger than 4096 bytes');
    expect(await players()).toBe(before);
  });

  it('a client that goes away mid-upload → nothing written, and the next import goes through', async () => {
    const before = await players();
    const up = upload(url, path(), jwt);
    for (let i = 300; i < 305; i++) up.send(line(i));
    await sleep(300);
    up.answer.catch(() => {});
    up.socket.destroy();
    await sleep(300);
    expect(await players()).toBe(before);
    const next = upload(url, path(), jwt);
    next.send(line(400));
    next.end();
    expect((await next.answer).status).toBe(200);
  });

  it.runIf(storeKind === 'postgres')(
    'a second import into the same game and stage while one runs → 409 IMPORT_IN_PROGRESS',
    async () => {
      const first = upload(url, path(), jwt);
      first.send(line(500));
      await sleep(300);
      const second = upload(url, path(), jwt);
      second.send(line(501));
      second.end();
      const refused = await second.answer;
      expect([refused.status, refused.body.code]).toEqual([409, 'IMPORT_IN_PROGRESS']);
      first.end();
      expect((await first.answer).status).toBe(200);
    },
  );
});
