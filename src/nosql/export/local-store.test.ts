// Local export store: signed download links (expiry, tampering, other games, path traversal), atomic writes, purge.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPlaybaseError, type PlaybaseError } from '../../errors.js';
import {
  createLocalStore,
  type DownloadParams,
  type LocalExportStore,
  loadSigningKey,
  signDownload,
  verifyDownload,
} from './local-store.js';
import { createExportFileName, EXPORT_URL_VALIDITY_MS, isExportFileName } from './store.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const DAY = EXPORT_URL_VALIDITY_MS;
const BASE = 'http://127.0.0.1:9999';

let dataDir: string;
let key: Buffer;
let store: LocalExportStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'playbase-export-'));
  key = randomBytes(32);
  store = createLocalStore({ dataDir, publicBaseUrl: BASE, signingKey: key });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Splits a presigned URL back into what a route receives. */
function parseUrl(url: string): DownloadParams {
  const u = new URL(url);
  const match = /^\/restv2\/game\/([^/]+)\/export\/download\/([^/]+)$/.exec(u.pathname);
  if (!match?.[1] || !match[2]) throw new Error(`unexpected path ${u.pathname}`);
  return {
    game: match[1],
    file: match[2],
    expires: u.searchParams.get('expires') ?? '',
    signature: u.searchParams.get('signature') ?? '',
  };
}

async function writeText(game: string, file: string, text: string) {
  return store.write(game, file, [Buffer.from(text)]);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function catchError(promise: Promise<unknown>): Promise<PlaybaseError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isPlaybaseError(e)) throw new Error(`expected a PlaybaseError, got ${String(e)}`);
  return e;
}

describe('download links', () => {
  it('presigned URL → names game, file, expiry and verifies ok before expiry', async () => {
    const file = createExportFileName('mongo', T0);
    const url = await store.presign('gameA', file, T0 + DAY);
    expect(
      url.startsWith(`${BASE}/restv2/game/gameA/export/download/${file}?expires=${T0 + DAY}&signature=`),
    ).toBe(true);
    const params = parseUrl(url);
    expect(params.signature).toBe(signDownload('gameA', file, T0 + DAY, key));
    expect(verifyDownload(params, key, T0)).toBe('ok');
  });

  it('link used 24 h after it was made → expired; one millisecond before → ok', async () => {
    const file = createExportFileName('mongo', T0);
    const params = parseUrl(await store.presign('gameA', file, T0 + DAY));
    expect(verifyDownload(params, key, T0 + DAY - 1)).toBe('ok');
    expect(verifyDownload(params, key, T0 + DAY)).toBe('expired');
    expect(verifyDownload(params, key, T0 + 2 * DAY)).toBe('expired');
  });

  it('any changed part (game, file, expires, signature) → bad-signature', async () => {
    const file = createExportFileName('data', T0);
    const good = parseUrl(await store.presign('gameA', file, T0 + DAY));
    const otherFile = createExportFileName('data', T0);
    const flipped = `${good.signature.slice(0, -1)}${good.signature.endsWith('0') ? '1' : '0'}`;
    const tampered: DownloadParams[] = [
      { ...good, game: 'gameB' },
      { ...good, file: otherFile },
      { ...good, expires: String(T0 + 2 * DAY) },
      { ...good, expires: `0${good.expires}` },
      { ...good, expires: `${good.expires}.0` },
      { ...good, signature: flipped },
      { ...good, signature: good.signature.toUpperCase() },
      { ...good, signature: good.signature.slice(0, 32) },
      { ...good, signature: '' },
    ];
    for (const params of tampered) expect(verifyDownload(params, key, T0)).toBe('bad-signature');
    expect(verifyDownload(good, randomBytes(32), T0)).toBe('bad-signature');
  });

  it("another game's valid link used on this game's file → bad-signature", async () => {
    const file = createExportFileName('mongo', T0);
    await writeText('gameA', file, 'secret data of A');
    const linkOfB = parseUrl(await store.presign('gameB', createExportFileName('mongo', T0), T0 + DAY));
    const err = await catchError(store.openDownload({ ...linkOfB, game: 'gameA', file }, T0));
    expect(err.status).toBe(403);
    expect(err.code).toBe('EXPORT_LINK_INVALID');
    // The same link of A under B's path is refused as well.
    const linkOfA = parseUrl(await store.presign('gameA', file, T0 + DAY));
    expect(verifyDownload({ ...linkOfA, game: 'gameB' }, key, T0)).toBe('bad-signature');
  });

  it('path traversal or foreign file names → refused even when signed with the real key', async () => {
    await writeFile(join(dataDir, 'outside.txt'), 'not an export');
    const names = [
      '../outside.txt',
      '../../etc/passwd',
      'mongo-1768478400000-0123456789abcdef.ndjson.gz/../../outside.txt',
      '..%2F..%2Foutside.txt',
      '.mongo-1768478400000-0123456789abcdef.ndjson.gz',
      'mongo-1768478400000-0123456789ABCDEF.ndjson.gz',
      'mongo-1768478400000-0123456789abcdef.ndjson',
      'mongo-1768478400000-0123456789abcdef.ndjson.gz\u0000',
      '',
    ];
    for (const file of names) {
      expect(isExportFileName(file)).toBe(false);
      const params = {
        game: 'gameA',
        file,
        expires: String(T0 + DAY),
        signature: signDownload('gameA', file, T0 + DAY, key),
      };
      expect(verifyDownload(params, key, T0)).toBe('bad-signature');
      await expect(store.write('gameA', file, [Buffer.from('x')])).rejects.toThrow(RangeError);
      await expect(store.presign('gameA', file, T0 + DAY)).rejects.toThrow(RangeError);
    }
    for (const game of ['..', '../x', 'a/b', '', 'a b']) {
      const file = createExportFileName('mongo', T0);
      const params = {
        game,
        file,
        expires: String(T0 + DAY),
        signature: signDownload(game, file, T0 + DAY, key),
      };
      expect(verifyDownload(params, key, T0)).toBe('bad-signature');
      await expect(store.write(game, file, [Buffer.from('x')])).rejects.toThrow(RangeError);
    }
    expect(await readdir(dataDir)).toEqual(['outside.txt']);
  });
});

describe('local store files', () => {
  it('write then open a valid link → same bytes and gzip download headers', async () => {
    const file = createExportFileName('mongo', T0, 'live');
    const result = await writeText('gameA', file, 'line one\nline two\n');
    expect(result.bytes).toBe(18);
    const opened = await store.openDownload(parseUrl(await store.presign('gameA', file, T0 + DAY)), T0);
    expect(opened.bytes).toBe(18);
    expect(opened.headers['content-type']).toBe('application/gzip');
    expect(opened.headers['content-disposition']).toBe(`attachment; filename="${file}"`);
    expect(await readAll(opened.stream)).toBe('line one\nline two\n');
  });

  it('open an expired link → 403 EXPORT_LINK_EXPIRED; valid link to a missing file → 404', async () => {
    const file = createExportFileName('mongo', T0);
    await writeText('gameA', file, 'x');
    const params = parseUrl(await store.presign('gameA', file, T0 + DAY));
    const expired = await catchError(store.openDownload(params, T0 + DAY));
    expect([expired.status, expired.code]).toEqual([403, 'EXPORT_LINK_EXPIRED']);
    const missing = createExportFileName('mongo', T0);
    const gone = await catchError(
      store.openDownload(parseUrl(await store.presign('gameA', missing, T0 + DAY)), T0),
    );
    expect([gone.status, gone.code]).toEqual([404, 'EXPORT_FILE_NOT_FOUND']);
  });

  it('body that fails halfway → no export file and no temp file left', async () => {
    const file = createExportFileName('mongo', T0);
    async function* failing() {
      yield Buffer.from('partial');
      throw new Error('source broke');
    }
    await expect(store.write('gameA', file, failing())).rejects.toThrow('source broke');
    expect(await readdir(join(dataDir, 'exports', 'gameA'))).toEqual([]);
  });

  it('purgeExpired → deletes files and stale temp files 24 h after they were finished, keeps the rest', async () => {
    const oldFile = createExportFileName('mongo', T0);
    const newFile = createExportFileName('data', T0 + DAY / 2);
    await writeText('gameA', oldFile, 'old');
    await writeText('gameB', newFile, 'new');
    const dirA = join(dataDir, 'exports', 'gameA');
    const dirB = join(dataDir, 'exports', 'gameB');
    const staleTemp = join(dirA, `.${createExportFileName('mongo', T0)}.0123456789ab.part`);
    const foreign = join(dirA, 'notes.txt');
    await writeFile(staleTemp, 'half');
    await writeFile(foreign, 'not ours');
    await setMtime([join(dirA, oldFile), staleTemp, foreign], T0);
    await setMtime([join(dirB, newFile)], T0 + DAY / 2);

    expect(await store.purgeExpired(T0 + DAY - 1)).toBe(0);
    expect(await store.purgeExpired(T0 + DAY)).toBe(2);
    expect((await readdir(dirA)).sort()).toEqual(['notes.txt']);
    expect(await readdir(dirB)).toEqual([newFile]);
    expect(await store.purgeExpired(T0 + DAY + DAY / 2)).toBe(1);
    expect(await readdir(dirB)).toEqual([]);
  });

  it('file finished later than the time in its name → kept until 24 h after it was finished', async () => {
    const file = createExportFileName('mongo', T0);
    await writeText('gameA', file, 'slow export');
    const path = join(dataDir, 'exports', 'gameA', file);
    await setMtime([path], T0 + 60 * 60 * 1000);
    expect(await store.purgeExpired(T0 + DAY)).toBe(0);
    expect(await store.purgeExpired(T0 + DAY + 60 * 60 * 1000)).toBe(1);
  });

  it('purgeExpired on a data folder without exports → 0', async () => {
    expect(await store.purgeExpired(T0)).toBe(0);
  });

  it('loadSigningKey twice → the same 32-byte key, stored with mode 0600', async () => {
    const first = await loadSigningKey(dataDir);
    const second = await loadSigningKey(dataDir);
    expect(first.byteLength).toBe(32);
    expect(second.equals(first)).toBe(true);
    const info = await stat(join(dataDir, 'exports', '.signing-key'));
    expect(info.mode & 0o777).toBe(0o600);
    expect((await readFile(join(dataDir, 'exports', '.signing-key'), 'utf8')).trim()).toBe(
      first.toString('hex'),
    );
    expect((await readdir(join(dataDir, 'exports'))).sort()).toEqual(['.signing-key']);
  });

  it('short signing key or a base URL with a path → refused at construction', () => {
    expect(() => createLocalStore({ dataDir, publicBaseUrl: BASE, signingKey: randomBytes(16) })).toThrow(
      RangeError,
    );
    expect(() => createLocalStore({ dataDir, publicBaseUrl: `${BASE}/x?y`, signingKey: key })).toThrow(
      RangeError,
    );
  });
});

describe('served over HTTP by a route that calls openDownload', () => {
  let app: FastifyInstance;
  let now = T0;

  beforeEach(async () => {
    app = buildDownloadApp(
      () => store,
      () => now,
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    store = createLocalStore({ dataDir, publicBaseUrl: `http://127.0.0.1:${address.port}`, signingKey: key });
  });

  afterEach(async () => {
    await app.close();
  });

  it('GET the presigned URL without any credential → 200 with the file; after 24 h → 403', async () => {
    const file = createExportFileName('mongo', T0);
    await writeText('gameA', file, 'hello export');
    const url = await store.presign('gameA', file, T0 + DAY);
    now = T0 + 1000;
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/gzip');
    expect(await ok.text()).toBe('hello export');
    now = T0 + DAY;
    const late = await fetch(url);
    expect(late.status).toBe(403);
    expect(((await late.json()) as { code: string }).code).toBe('EXPORT_LINK_EXPIRED');
  });

  it('GET with another game in the path or an edited expiry → 403 EXPORT_LINK_INVALID', async () => {
    const file = createExportFileName('mongo', T0);
    await writeText('gameA', file, 'A');
    await writeText('gameB', file, 'B');
    const url = await store.presign('gameA', file, T0 + DAY);
    now = T0;
    for (const edited of [
      url.replace('/game/gameA/', '/game/gameB/'),
      url.replace(`expires=${T0 + DAY}`, `expires=${T0 + 2 * DAY}`),
    ]) {
      const res = await fetch(edited);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('EXPORT_LINK_INVALID');
    }
  });
});

async function setMtime(paths: string[], ms: number) {
  for (const path of paths) await utimes(path, ms / 1000, ms / 1000);
}

/** A minimal stand-in for the nosql role's download route, as the lead's routes.ts would wire it. */
function buildDownloadApp(getStore: () => LocalExportStore, clock: () => number): FastifyInstance {
  const app = Fastify();
  app.setErrorHandler((err, _req, reply) => {
    if (isPlaybaseError(err)) return reply.status(err.status).send({ message: err.message, code: err.code });
    return reply.status(500).send({ message: 'Internal server error', code: 'INTERNAL_ERROR' });
  });
  app.get<{ Params: { game: string; file: string }; Querystring: { expires?: string; signature?: string } }>(
    '/restv2/game/:game/export/download/:file',
    async (req, reply) => {
      const { game, file } = req.params;
      const { expires = '', signature = '' } = req.query;
      const opened = await getStore().openDownload({ game, file, expires, signature }, clock());
      return reply.headers(opened.headers).send(opened.stream);
    },
  );
  return app;
}
