// The exports through the S3 export store, against an S3-compatible server on loopback: PLAYBASE_TEST_S3_URL
// (http://KEY:SECRET@127.0.0.1:PORT/bucket), else `moto_server` when it is on the PATH; skipped otherwise.
// moto checks neither SigV4 signatures nor expiry, so the URL's signature is recomputed here by an independent
// checker, itself first checked against AWS's published presigned-URL example.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportJobs } from '../../src/nosql/export-jobs.js';
import { type DataWorld, startDataWorld } from '../data/world.js';
import { freePort } from '../processes.js';

const DAY = 24 * 60 * 60 * 1000;
const GIVEN = process.env.PLAYBASE_TEST_S3_URL;
const hasMoto = (() => {
  try {
    execFileSync('moto_server', ['--help'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
})();
const MISSING = !GIVEN && !hasMoto;

function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** 'ok', 'expired' or 'bad-signature', as S3 judges a presigned GET (host the only signed header). */
function judge(url: string, secret: string, now: number): string {
  const u = new URL(url);
  const get = (name: string) => u.searchParams.get(name) ?? '';
  const query = [...u.searchParams.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join('&');
  const request = ['GET', u.pathname, query, `host:${u.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const [, day = '', region = '', service = ''] = get('X-Amz-Credential').split('/');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    get('X-Amz-Date'),
    scope,
    createHash('sha256').update(request).digest('hex'),
  ].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  if (get('X-Amz-SignedHeaders') !== 'host' || hmac(key, toSign).toString('hex') !== get('X-Amz-Signature'))
    return 'bad-signature';
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(get('X-Amz-Date'));
  if (!m) return 'bad-signature';
  const signedAt = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return now < signedAt + Number(get('X-Amz-Expires')) * 1000 ? 'ok' : 'expired';
}

describe('the SigV4 checker of this file', () => {
  it("AWS's published example (examplebucket/test.txt, 20130524) → ok within 24 h, expired after, bad when changed", () => {
    const url =
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=' +
      'AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400' +
      '&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const t = Date.UTC(2013, 4, 24);
    expect(judge(url, secret, t + DAY - 1)).toBe('ok');
    expect(judge(url, secret, t + DAY)).toBe('expired');
    expect(judge(url.replace('test.txt', 'test.tx2'), secret, t)).toBe('bad-signature');
  });
});

describe.skipIf(MISSING)(
  `exports to S3${MISSING ? ' (skipped: set PLAYBASE_TEST_S3_URL or put moto_server on the PATH)' : ''}`,
  () => {
    let w: DataWorld;
    let moto: ChildProcess | undefined;
    let s3: { endpoint: string; bucket: string; key: string; secret: string };
    const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

    beforeAll(async () => {
      if (GIVEN) {
        const u = new URL(GIVEN);
        s3 = {
          endpoint: u.origin,
          bucket: u.pathname.slice(1),
          key: decodeURIComponent(u.username),
          secret: decodeURIComponent(u.password),
        };
      } else {
        const port = await freePort();
        moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
        s3 = {
          endpoint: `http://127.0.0.1:${port}`,
          bucket: 'playbase-exports',
          key: 'test-key',
          secret: 'test-secret',
        };
        for (let i = 0; i < 100; i++) {
          if (
            await fetch(s3.endpoint).then(
              () => true,
              () => false,
            )
          )
            break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      // The S3 store takes its credentials from the AWS SDK's default chain, as in production.
      process.env.AWS_ACCESS_KEY_ID = s3.key;
      process.env.AWS_SECRET_ACCESS_KEY = s3.secret;
      const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
      const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true });
      await client.send(new CreateBucketCommand({ Bucket: s3.bucket })).catch(() => undefined);
      client.destroy();
      w = await startDataWorld({
        PLAYBASE_EXPORT_S3_BUCKET: s3.bucket,
        PLAYBASE_EXPORT_S3_ENDPOINT: s3.endpoint,
        PLAYBASE_EXPORT_S3_FORCE_PATH_STYLE: 'true',
        PLAYBASE_EXPORT_S3_PREFIX: `test-${Date.now()}/`,
      });
      await w.call('POST', `/preview/restv2/game/${w.apiKey}/mongo/collection/player/insert`, w.owner, [
        { _id: 'p1', userName: 'ann', password: 'secret-hash', n: { $numberLong: '42' } },
        { _id: 'p2', userName: 'bob' },
      ]);
      await w.data('PUT', 'preview', 'Note/n1', { data: { title: 'hello' } });
    }, 60_000);

    afterAll(async () => {
      await w?.close();
      moto?.kill();
      process.env.AWS_ACCESS_KEY_ID = savedEnv.id;
      process.env.AWS_SECRET_ACCESS_KEY = savedEnv.secret;
      if (savedEnv.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (savedEnv.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    });

    const download = async (url: string) => {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      return gunzipSync(Buffer.from(await res.arrayBuffer()))
        .toString()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    };

    it('mongo/export → a SigV4 URL valid 24 hours in the bucket; downloading it gives the documents', async () => {
      const res = await w.call('GET', `/preview/restv2/game/${w.apiKey}/mongo/export`, w.explorer);
      expect(res.statusCode).toBe(200);
      const { url, expiresAt } = res.json();
      const now = w.server.now.value;
      expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/test-`)).toBe(true);
      expect(new URL(url).pathname).toMatch(
        new RegExp(`/${w.apiKey}/mongo-preview-\\d{13}-[0-9a-f]{16}\\.ndjson\\.gz$`),
      );
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('86400');
      expect(expiresAt).toBe(new Date(now + DAY).toISOString());
      expect(judge(url, s3.secret, now)).toBe('ok');
      expect(judge(url, s3.secret, now + DAY)).toBe('expired');
      expect(judge(url.replace(w.apiKey, w.otherApiKey), s3.secret, now)).toBe('bad-signature');
      expect(await download(url)).toEqual([
        { collection: 'player', document: { _id: 'p1', userName: 'ann', n: { $numberLong: '42' } } },
        { collection: 'player', document: { _id: 'p2', userName: 'bob' } },
      ]);
    });

    it('data/export → the items from S3', async () => {
      const res = await w.call('GET', `/preview/restv2/game/${w.apiKey}/data/export`, w.owner);
      const lines = await download(res.json().url);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        type: 'Note',
        id: 'n1',
        data: { title: 'hello' },
        version: { $numberLong: '1' },
      });
    });

    it('the local download route answers 404 when exports go to S3; a purge deletes objects past 24 hours', async () => {
      const res = await w.call('GET', `/preview/restv2/game/${w.apiKey}/data/export`, w.owner);
      const url = res.json().url as string;
      const local = await w.call(
        'GET',
        `/preview/restv2/game/${w.apiKey}/export/download/data-preview-1795000000000-0123456789abcdef.ndjson.gz?expires=1&signature=00`,
        {},
      );
      expect(local.statusCode).toBe(404);
      w.server.now.advance(DAY + 60_000);
      expect(await createExportJobs(w.server.ctx).purge()).toBeGreaterThanOrEqual(3);
      expect((await fetch(url)).status).toBe(404);
    });
  },
);
