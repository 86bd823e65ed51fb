// The export calls' permission (Data Explorer, JWT only) and their download links: 24-hour expiry on a controlled
// clock, tampering, cross-game use, the stage base URL, purge of old files, shared concurrent runs.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportJobs } from '../../src/nosql/export-jobs.js';
import { type DataWorld, startDataWorld } from '../data/world.js';

const DAY = 24 * 60 * 60 * 1000;
let w: DataWorld;
beforeAll(async () => {
  w = await startDataWorld();
  await w.call('POST', `/preview/restv2/game/${w.apiKey}/mongo/collection/player/insert`, w.owner, {
    _id: 'p',
    userName: 'u',
  });
  await w.call(
    'POST',
    `/preview/restv2/game/${w.otherApiKey}/mongo/collection/player/insert`,
    await w.jwtOf('admin', w.otherApiKey),
    {
      _id: 'q',
      userName: 'other',
    },
  );
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const KINDS = ['mongo', 'data'] as const;
const exportUrl = (kind: string, game = w.apiKey, stage = 'preview') =>
  `/${stage}/restv2/game/${game}/${kind}/export`;

async function newLink(kind: 'mongo' | 'data' = 'mongo', game = w.apiKey): Promise<URL> {
  // A fresh JWT: the tests move the clock by days, past the 1-hour life of the world's tokens.
  const as = await w.jwtOf('admin', game);
  const res = await w.call('GET', exportUrl(kind, game), as);
  expect(res.statusCode).toBe(200);
  return new URL(res.json().url);
}

const download = (path: string) => w.call('GET', path, {});
const pathOf = (url: URL) => `${url.pathname}${url.search}`;

describe('the Data Explorer permission', () => {
  for (const kind of KINDS) {
    it(`${kind}/export: owner and DataExplorer collaborator → 200 {url, expiresAt}; ReadOnly (dataExplorer 0) → 403`, async () => {
      for (const as of [w.owner, w.explorer]) {
        const res = await w.call('GET', exportUrl(kind), as);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.url).toMatch(/^https?:\/\//);
        expect(body.expiresAt).toBe(new Date(w.server.now.value + DAY).toISOString());
      }
      const denied = await w.call('GET', exportUrl(kind), w.reader);
      expect(denied.statusCode).toBe(403);
    });

    it(`${kind}/export: no credential, Basic, an access token or an expired JWT → 401; another game's JWT → 403`, async () => {
      expect((await w.call('GET', exportUrl(kind), {})).statusCode).toBe(401);
      expect((await w.call('GET', exportUrl(kind), { authorization: w.server.adminBasic })).statusCode).toBe(
        401,
      );
      const token = (await w.call('GET', '/restv2/auth/user', { authorization: w.server.adminBasic })).json()[
        'X-SVCAccessToken'
      ];
      expect((await w.call('GET', exportUrl(kind), { 'x-svcaccesstoken': token })).statusCode).toBe(401);
      const short = await w.jwtOf('admin', w.apiKey, '?expireInSeconds=1');
      w.server.now.advance(2000);
      expect((await w.call('GET', exportUrl(kind), short)).statusCode).toBe(401);
      expect((await w.call('GET', exportUrl(kind), await w.jwtOf('admin', w.otherApiKey))).statusCode).toBe(
        403,
      );
    });
  }
});

describe('download links', () => {
  it('the URL is under the stage base URL that endpoint discovery gives, in both stages', async () => {
    const endpoints = (
      await w.call('GET', `/restv2/game/${w.apiKey}/endpoints`, { authorization: w.server.adminBasic })
    ).json();
    for (const stage of ['live', 'preview'] as const) {
      const res = await w.call('GET', exportUrl('mongo', w.apiKey, stage), await w.jwtOf('admin', w.apiKey));
      const base = stage === 'live' ? endpoints.liveNosql : endpoints.previewNosql;
      expect(
        res.json().url.startsWith(`${base}/restv2/game/${w.apiKey}/export/download/mongo-${stage}-`),
      ).toBe(true);
    }
  });

  it('valid 1 ms before 24 hours → 200 with gzip headers; at 24 hours → 403 EXPORT_LINK_EXPIRED', async () => {
    const link = await newLink();
    w.server.now.advance(DAY - 1);
    const ok = await download(pathOf(link));
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/gzip');
    expect(ok.headers['cache-control']).toBe('private, no-store');
    w.server.now.advance(1);
    const late = await download(pathOf(link));
    expect(late.statusCode).toBe(403);
    expect(late.json().code).toBe('EXPORT_LINK_EXPIRED');
  });

  it('any changed part → 403 EXPORT_LINK_INVALID', async () => {
    const link = await newLink('data');
    expect((await download(pathOf(link))).statusCode).toBe(200);
    const q = link.searchParams;
    const expires = q.get('expires') as string;
    const signature = q.get('signature') as string;
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0');
    const base = link.pathname.slice(0, link.pathname.lastIndexOf('/'));
    const file = link.pathname.slice(link.pathname.lastIndexOf('/') + 1);
    const variants = [
      `${link.pathname}?expires=${Number(expires) + 1000}&signature=${signature}`,
      `${link.pathname}?expires=${expires}&signature=${flip(signature)}`,
      `${link.pathname}?expires=${expires}&signature=${signature.toUpperCase()}`,
      `${link.pathname}?expires=0${expires}&signature=${signature}`,
      `${link.pathname}?expires=${expires}`,
      `${link.pathname}?signature=${signature}`,
      `${link.pathname}?expires=${expires}&expires=${expires}&signature=${signature}`,
      `${base}/${file.replace(/-([0-9a-f]{16})\./, (_m, hex: string) => `-${flip(hex)}.`)}?expires=${expires}&signature=${signature}`,
      `${base}/${file.replace('data-', 'mongo-')}?expires=${expires}&signature=${signature}`,
      `${base}/..%2F..%2Fsigning-key?expires=${expires}&signature=${signature}`,
    ];
    for (const path of variants) {
      const res = await download(path);
      expect(res.statusCode, path).toBe(403);
      expect(res.json().code, path).toBe('EXPORT_LINK_INVALID');
    }
  });

  it("a link used for another game's path, or another game's file under this game → 403", async () => {
    const mine = await newLink();
    const theirs = await newLink('mongo', w.otherApiKey);
    expect((await download(pathOf(theirs))).statusCode).toBe(200);
    const swapped = pathOf(mine).replace(`/game/${w.apiKey}/`, `/game/${w.otherApiKey}/`);
    const res = await download(swapped);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('EXPORT_LINK_INVALID');
    const borrowed = pathOf(theirs).replace(`/game/${w.otherApiKey}/`, `/game/${w.apiKey}/`);
    expect((await download(borrowed)).statusCode).toBe(403);
  });

  it('each game gets only its own data', async () => {
    const theirs = await download(pathOf(await newLink('mongo', w.otherApiKey)));
    const { gunzipSync } = await import('node:zlib');
    const text = gunzipSync(theirs.rawPayload).toString();
    expect(text).toContain('"other"');
    expect(text).not.toContain('"u"');
  });
});

describe('retention', () => {
  const files = () =>
    readdirSync(join(w.dataDir, 'exports', w.apiKey)).filter((f) => f.endsWith('.ndjson.gz'));

  it('files older than 24 hours are deleted before the next export and by the purge timer; their link → 403', async () => {
    const old = await newLink();
    const oldFile = old.pathname.split('/').pop() as string;
    expect(files()).toContain(oldFile);
    w.server.now.advance(DAY + 1000);
    const fresh = await newLink();
    expect(files()).not.toContain(oldFile);
    expect(files()).toContain(fresh.pathname.split('/').pop());
    expect((await download(pathOf(old))).statusCode).toBe(403);
    w.server.now.advance(DAY + 1000);
    // The timer's task, run now rather than in an hour.
    expect(await createExportJobs(w.server.ctx).purge()).toBeGreaterThanOrEqual(1);
    expect(files()).toEqual([]);
  });

  it('a valid link whose file is gone → 404 EXPORT_FILE_NOT_FOUND', async () => {
    const link = await newLink();
    const { rmSync } = await import('node:fs');
    rmSync(join(w.dataDir, 'exports', w.apiKey, link.pathname.split('/').pop() as string));
    const res = await download(pathOf(link));
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('EXPORT_FILE_NOT_FOUND');
  });

  it('the signing key is kept in the data folder (links survive a restart)', () => {
    expect(existsSync(join(w.dataDir, 'exports', '.signing-key'))).toBe(true);
  });
});

describe('concurrent exports', () => {
  it('two export calls at once for the same game and stage share one file', async () => {
    const owner = await w.jwtOf('admin', w.apiKey);
    const [a, b] = await Promise.all([
      w.call('GET', exportUrl('mongo'), owner),
      w.call('GET', exportUrl('mongo'), owner),
    ]);
    expect(a.statusCode).toBe(200);
    expect(a.json().url).toBe(b.json().url);
    const [c, d] = await Promise.all([
      w.call('GET', exportUrl('mongo'), owner),
      w.call('GET', exportUrl('data'), owner),
    ]);
    expect(c.json().url).not.toBe(d.json().url);
  });
});
