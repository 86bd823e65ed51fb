// S3 export store: SigV4 presigning checked against AWS's published example, and a loopback S3 round trip.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store, type S3StoreOptions } from './s3-store.js';
import { createExportFileName, EXPORT_URL_VALIDITY_MS, type ExportStore } from './store.js';

const sdk = await import('@aws-sdk/client-s3').catch(() => undefined);
const presigner = await import('@aws-sdk/s3-request-presigner').catch(() => undefined);
const SDK_MISSING = !sdk || !presigner;
const SDK_REASON = SDK_MISSING
  ? ' (skipped: @aws-sdk/client-s3 or @aws-sdk/s3-request-presigner is not installed)'
  : '';

// The worked example of "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)" in the S3 API
// reference: GET examplebucket/test.txt, 20130524T000000Z, valid 86400 s.
const AWS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  date: Date.UTC(2013, 4, 24, 0, 0, 0),
  canonicalRequestHash: '3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04',
  signature: 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
  url:
    'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=' +
    'AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400' +
    '&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
};
const DAY = EXPORT_URL_VALIDITY_MS;

// --- An independent SigV4 query-string checker, written from the AWS documentation (the test oracle) ---

function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** Recomputes a presigned GET URL's signature as S3 would (host the only signed header, unsigned payload). */
function recomputeSigV4(url: string, secretAccessKey: string) {
  const u = new URL(url);
  const get = (name: string) => u.searchParams.get(name) ?? '';
  const query = [...u.searchParams.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .sort()
    .join('&');
  const canonicalRequest = ['GET', u.pathname, query, `host:${u.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join(
    '\n',
  );
  const [, day = '', region = '', service = ''] = get('X-Amz-Credential').split('/');
  const canonicalRequestHash = createHash('sha256').update(canonicalRequest).digest('hex');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', get('X-Amz-Date'), scope, canonicalRequestHash].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), 'aws4_request');
  return { canonicalRequestHash, signature: hmac(signingKey, stringToSign).toString('hex') };
}

/** What S3 answers a presigned GET: 'ok', 'expired' (403) or 'bad-signature' (403). */
function checkPresignedUrl(url: string, secretAccessKey: string, now: number) {
  const u = new URL(url);
  if (u.searchParams.get('X-Amz-SignedHeaders') !== 'host') return 'bad-signature';
  if (recomputeSigV4(url, secretAccessKey).signature !== u.searchParams.get('X-Amz-Signature'))
    return 'bad-signature';
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(u.searchParams.get('X-Amz-Date') ?? '');
  if (!m) return 'bad-signature';
  const signedAt = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return now < signedAt + Number(u.searchParams.get('X-Amz-Expires')) * 1000 ? 'ok' : 'expired';
}

describe('SigV4 presigned URLs (AWS published example)', () => {
  it("the test's own SigV4 checker on AWS's example URL → AWS's canonical-request hash and signature", () => {
    const result = recomputeSigV4(AWS.url, AWS.secretAccessKey);
    expect(result.canonicalRequestHash).toBe(AWS.canonicalRequestHash);
    expect(result.signature).toBe(AWS.signature);
    expect(checkPresignedUrl(AWS.url, AWS.secretAccessKey, AWS.date + 86_399_999)).toBe('ok');
    expect(checkPresignedUrl(AWS.url, AWS.secretAccessKey, AWS.date + 86_400_000)).toBe('expired');
    expect(checkPresignedUrl(AWS.url.replace('test.txt', 'test.txu'), AWS.secretAccessKey, AWS.date)).toBe(
      'bad-signature',
    );
  });

  it.skipIf(SDK_MISSING)(
    `the SDK presigner with the clock fixed at 20130524T000000Z → AWS's signature${SDK_REASON}`,
    async () => {
      if (!sdk || !presigner) return;
      const client = new sdk.S3Client({ region: 'us-east-1', credentials: AWS });
      const signer = new presigner.S3RequestPresigner({ ...client.config });
      const host = 'examplebucket.s3.amazonaws.com';
      const request = {
        method: 'GET',
        protocol: 'https:',
        hostname: host,
        path: '/test.txt',
        query: {},
        headers: { host },
      };
      // AWS's example signs no payload-hash parameter; the SDK adds one unless told to keep it a plain header.
      const keepAsHeader = new Set(['x-amz-content-sha256']);
      const signed = await signer.presign(request as never, {
        signingDate: new Date(AWS.date),
        expiresIn: 86400,
        unhoistableHeaders: keepAsHeader,
        unsignableHeaders: new Set(keepAsHeader),
      });
      expect(signed.query).toEqual(Object.fromEntries(new URL(AWS.url).searchParams));
      client.destroy();
    },
  );
});

describe.skipIf(SDK_MISSING)(`createS3Store presign${SDK_REASON}`, () => {
  const file = createExportFileName('mongo', AWS.date);
  const open = (clock: number, extra: Partial<S3StoreOptions> = {}) =>
    createS3Store({ bucket: 'examplebucket', region: 'us-east-1', ...AWS, clock: () => clock, ...extra });

  it('presign for 24 h → a SigV4 URL that S3 accepts until 24 h later, for exactly this game and file', async () => {
    const store = await open(AWS.date);
    const url = await store.presign('gameA', file, AWS.date + DAY);
    const u = new URL(url);
    expect(u.protocol).toBe('https:');
    expect(u.pathname).toBe(`/exports/gameA/${file}`);
    expect(u.searchParams.get('X-Amz-Date')).toBe('20130524T000000Z');
    expect(u.searchParams.get('X-Amz-Expires')).toBe('86400');
    expect(u.searchParams.get('X-Amz-Credential')).toBe(
      `${AWS.accessKeyId}/20130524/us-east-1/s3/aws4_request`,
    );
    expect(checkPresignedUrl(url, AWS.secretAccessKey, AWS.date + DAY - 1)).toBe('ok');
    expect(checkPresignedUrl(url, AWS.secretAccessKey, AWS.date + DAY)).toBe('expired');
    expect(checkPresignedUrl(url, 'another-secret', AWS.date)).toBe('bad-signature');
    await store.close?.();
  });

  it('presigned URL with game, file, expiry, date or signature changed → S3 would refuse it', async () => {
    const store = await open(AWS.date);
    const url = await store.presign('gameA', file, AWS.date + DAY);
    const sig = new URL(url).searchParams.get('X-Amz-Signature') ?? '';
    const tampered = [
      url.replace('/gameA/', '/gameB/'),
      url.replace(file, createExportFileName('mongo', AWS.date)),
      url.replace('X-Amz-Expires=86400', 'X-Amz-Expires=604800'),
      url.replace('X-Amz-Date=20130524T000000Z', 'X-Amz-Date=20130530T000000Z'),
      url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`),
    ];
    for (const edited of tampered) {
      expect(edited).not.toBe(url);
      expect(checkPresignedUrl(edited, AWS.secretAccessKey, AWS.date)).toBe('bad-signature');
    }
    // A URL the store signed for game B is not a URL for game A's file, and the reverse.
    const forB = await store.presign('gameB', file, AWS.date + DAY);
    expect(forB.replace('/gameB/', '/gameA/')).not.toBe(url);
    expect(checkPresignedUrl(forB.replace('/gameB/', '/gameA/'), AWS.secretAccessKey, AWS.date)).toBe(
      'bad-signature',
    );
    await store.close?.();
  });

  it('expiry past the SigV4 week, in the past, or a traversal name → RangeError', async () => {
    const store = await open(AWS.date, { endpoint: 'http://127.0.0.1:1', forcePathStyle: true });
    await expect(store.presign('gameA', file, AWS.date + 8 * DAY)).rejects.toThrow(RangeError);
    await expect(store.presign('gameA', file, AWS.date)).rejects.toThrow(RangeError);
    await expect(store.presign('gameA', '../secret', AWS.date + DAY)).rejects.toThrow(RangeError);
    await expect(store.presign('../gameA', file, AWS.date + DAY)).rejects.toThrow(RangeError);
    const url = new URL(await store.presign('gameA', file, AWS.date + DAY));
    expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:1/examplebucket/exports/gameA/${file}`);
    await store.close?.();
  });
});

// --- A real S3-compatible server on loopback: PLAYBASE_TEST_S3_URL (http://KEY:SECRET@127.0.0.1:PORT/bucket),
// else s3rver started in-process when it is installed. Note: s3rver checks expiry but not SigV4 signatures.

interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

const S3_URL = process.env.PLAYBASE_TEST_S3_URL;
const moduleName = 's3rver';
const s3rverModule = S3_URL ? undefined : await import(moduleName).catch(() => undefined);
const LOOPBACK_MISSING = SDK_MISSING || (!S3_URL && !s3rverModule);
const LOOPBACK_REASON = LOOPBACK_MISSING ? ' (skipped: set PLAYBASE_TEST_S3_URL or install s3rver)' : '';

async function startLoopbackS3(): Promise<LoopbackS3> {
  if (S3_URL) {
    const u = new URL(S3_URL);
    return {
      endpoint: u.origin,
      bucket: u.pathname.replace(/^\/|\/$/g, ''),
      accessKeyId: decodeURIComponent(u.username),
      secretAccessKey: decodeURIComponent(u.password),
      stop: async () => {},
    };
  }
  const directory = await mkdtemp(join(tmpdir(), 'playbase-s3rver-'));
  const S3rver = s3rverModule.default;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'playbase-exports',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

describe.skipIf(LOOPBACK_MISSING)(
  `S3 store against an S3-compatible server on loopback${LOOPBACK_REASON}`,
  () => {
    let s3: LoopbackS3;
    const prefix = `playbase-test-${randomBytes(4).toString('hex')}/`;
    const stores: ExportStore[] = [];

    async function open(clock: () => number): Promise<ExportStore> {
      const { endpoint, bucket, accessKeyId, secretAccessKey } = s3;
      const store = await createS3Store({
        ...{ endpoint, bucket, accessKeyId, secretAccessKey, prefix, clock },
        region: 'us-east-1',
        forcePathStyle: true,
        partSize: 5 * 1024 * 1024,
      });
      stores.push(store);
      return store;
    }

    beforeAll(async () => {
      s3 = await startLoopbackS3();
      const client = new sdk!.S3Client({
        region: 'us-east-1',
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      await client.send(new sdk!.CreateBucketCommand({ Bucket: s3.bucket })).catch((e: { name?: string }) => {
        if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
      });
      client.destroy();
    });

    afterAll(async () => {
      const cleaner = stores[0];
      if (cleaner) await cleaner.purgeExpired(Date.now() + 10 * DAY);
      for (const store of stores) await store.close?.();
      await s3?.stop();
    });

    it('small and 12 MiB (multipart) exports → downloaded byte for byte through their presigned URLs', async () => {
      const store = await open(() => Date.now());
      const small = Buffer.from('{"collection":"c","document":{}}\n');
      const large = randomBytes(12 * 1024 * 1024);
      for (const body of [small, large]) {
        const file = createExportFileName('mongo', Date.now());
        const written = await store.write('gameA', file, chunked(body));
        expect(written.bytes).toBe(body.byteLength);
        const res = await fetch(await store.presign('gameA', file, Date.now() + DAY));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/gzip');
        expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
      }
    });

    it('URL whose 24 h have passed → 403 from the server', async () => {
      const file = createExportFileName('data', Date.now());
      await (await open(() => Date.now())).write('gameA', file, chunked(Buffer.from('x')));
      const signedYesterday = await open(() => Date.now() - DAY - 2000);
      const res = await fetch(await signedYesterday.presign('gameA', file, Date.now() - 2000));
      expect(res.status).toBe(403);
    });

    it('body that fails after the first part → rejected and no object left', async () => {
      const store = await open(() => Date.now());
      const file = createExportFileName('mongo', Date.now());
      async function* failing() {
        yield* chunked(randomBytes(6 * 1024 * 1024));
        throw new Error('source broke');
      }
      await expect(store.write('gameB', file, failing())).rejects.toThrow('source broke');
      const res = await fetch(await store.presign('gameB', file, Date.now() + DAY));
      expect(res.status).toBe(404);
    });

    it('purgeExpired → keeps exports younger than 24 h, deletes them once older', async () => {
      const store = await open(() => Date.now());
      const file = createExportFileName('mongo', Date.now());
      await store.write('gameC', file, chunked(Buffer.from('y')));
      expect(await store.purgeExpired(Date.now())).toBe(0);
      const removed = await store.purgeExpired(Date.now() + DAY + 60_000);
      expect(removed).toBeGreaterThanOrEqual(1);
      const res = await fetch(await store.presign('gameC', file, Date.now() + DAY));
      expect(res.status).toBe(404);
    });
  },
);

function* chunked(body: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let i = 0; i < body.byteLength; i += size) yield body.subarray(i, i + size);
}
