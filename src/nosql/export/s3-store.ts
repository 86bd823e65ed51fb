// Production export store: S3-compatible object storage, downloads through SigV4 presigned GET URLs.
import type { S3Client } from '@aws-sdk/client-s3';
import {
  assertExportTarget,
  EXPORT_URL_VALIDITY_MS,
  type ExportBody,
  type ExportStore,
  isGameKey,
  readExportFileTime,
} from './store.js';

export interface S3StoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible servers (MinIO, Ceph, R2...); AWS itself needs none. */
  endpoint?: string;
  /** `bucket` in the path instead of the host name; most S3-compatible servers want this. */
  forcePathStyle?: boolean;
  /** Static credentials; without them the SDK's default chain (environment, profile, instance role) is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Key prefix of every export object; '' or ending in '/'. Default `exports/`. */
  prefix?: string;
  /** Epoch ms; signs URLs at this time so tests can fix it. */
  clock: () => number;
  /** How long an object is kept; default 24 h, the link validity. */
  retentionMs?: number;
  /** Multipart part size in bytes (at least 5 MiB, S3's minimum); default 8 MiB. Bounds the memory per upload. */
  partSize?: number;
}

type S3Sdk = typeof import('@aws-sdk/client-s3');
type Presigner = typeof import('@aws-sdk/s3-request-presigner');

interface S3Context {
  sdk: S3Sdk;
  client: S3Client;
  bucket: string;
}

const MIN_PART = 5 * 1024 * 1024;
const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60;
const DELETE_BATCH = 1000;

/** Loads the AWS SDK on demand, so the embedded default runs without it. */
async function loadS3Sdk(): Promise<{ sdk: S3Sdk; presigner: Presigner }> {
  try {
    const [sdk, presigner] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('@aws-sdk/s3-request-presigner'),
    ]);
    return { sdk, presigner };
  } catch (e) {
    throw new Error(
      'The S3 export store needs @aws-sdk/client-s3 and @aws-sdk/s3-request-presigner installed',
      {
        cause: e,
      },
    );
  }
}

export async function createS3Store(options: S3StoreOptions): Promise<ExportStore> {
  const prefix = options.prefix ?? 'exports/';
  const partSize = options.partSize ?? 8 * 1024 * 1024;
  const retentionMs = options.retentionMs ?? EXPORT_URL_VALIDITY_MS;
  if (prefix !== '' && !/^[A-Za-z0-9!_.*'()-]+(?:\/[A-Za-z0-9!_.*'()-]+)*\/$/.test(prefix)) {
    throw new RangeError("prefix must be '' or safe key segments ending in '/'");
  }
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART)
    throw new RangeError('partSize must be >= 5 MiB');
  const { sdk, presigner } = await loadS3Sdk();
  const credentials =
    options.accessKeyId && options.secretAccessKey
      ? {
          accessKeyId: options.accessKeyId,
          secretAccessKey: options.secretAccessKey,
          sessionToken: options.sessionToken,
        }
      : undefined;
  const client = new sdk.S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials,
    // Checksums only where S3 demands them: several S3-compatible servers reject the newer default trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const ctx: S3Context = { sdk, client, bucket: options.bucket };
  const keyOf = (game: string, file: string) => `${prefix}${game}/${file}`;

  return {
    async write(game, file, body) {
      assertExportTarget(game, file);
      return uploadStream(ctx, keyOf(game, file), file, body, partSize);
    },
    async presign(game, file, expiresAt) {
      assertExportTarget(game, file);
      const now = options.clock();
      const expiresIn = Math.ceil((expiresAt - now) / 1000);
      if (!(expiresIn >= 1 && expiresIn <= MAX_PRESIGN_SECONDS)) {
        throw new RangeError('expiresAt must be between 1 s and 7 days from now (SigV4 limit)');
      }
      const command = new sdk.GetObjectCommand({ Bucket: options.bucket, Key: keyOf(game, file) });
      return presigner.getSignedUrl(client, command, { expiresIn, signingDate: new Date(now) });
    },
    purgeExpired: (now) => purgeBucket(ctx, prefix, now, retentionMs),
    async close() {
      client.destroy();
    },
  };
}

interface Multipart {
  upload(data: Buffer): Promise<void>;
  complete(): Promise<void>;
  abort(): Promise<void>;
}

type ObjectMeta = { ContentType: string; ContentDisposition: string };

/**
 * Uploads a body of unknown length holding at most one part in memory: a body shorter than one part is one
 * PutObject, a longer one a multipart upload (S3 refuses a streamed PutObject without a length).
 */
async function uploadStream(ctx: S3Context, key: string, file: string, body: ExportBody, partSize: number) {
  const meta = { ContentType: 'application/gzip', ContentDisposition: `attachment; filename="${file}"` };
  let bytes = 0;
  let multipart: Multipart | undefined;
  try {
    for await (const { data, last } of cutParts(body, partSize)) {
      bytes += data.byteLength;
      if (last && multipart === undefined) {
        await ctx.client.send(
          new ctx.sdk.PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: data, ...meta }),
        );
        break;
      }
      multipart ??= await startMultipart(ctx, key, meta);
      if (data.byteLength > 0) await multipart.upload(data);
      if (last) await multipart.complete();
    }
    return { bytes };
  } catch (e) {
    await multipart?.abort();
    throw e;
  }
}

/** Cuts a byte stream into parts of exactly `size` bytes and a last, shorter (maybe empty) one. */
async function* cutParts(body: ExportBody, size: number): AsyncGenerator<{ data: Buffer; last: boolean }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array | string> | Iterable<Uint8Array>) {
    const buf = toBuffer(chunk);
    pending.push(buf);
    pendingBytes += buf.byteLength;
    while (pendingBytes >= size) {
      const all = Buffer.concat(pending);
      yield { data: all.subarray(0, size), last: false };
      pending = [all.subarray(size)];
      pendingBytes -= size;
    }
  }
  yield { data: Buffer.concat(pending), last: true };
}

async function startMultipart(ctx: S3Context, key: string, meta: ObjectMeta): Promise<Multipart> {
  const { sdk, client, bucket } = ctx;
  const created = await client.send(
    new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ...meta }),
  );
  const target = { Bucket: bucket, Key: key, UploadId: created.UploadId };
  const parts: { ETag: string | undefined; PartNumber: number }[] = [];
  return {
    async upload(data) {
      const PartNumber = parts.length + 1;
      const out = await client.send(new sdk.UploadPartCommand({ ...target, PartNumber, Body: data }));
      parts.push({ ETag: out.ETag, PartNumber });
    },
    async complete() {
      await client.send(
        new sdk.CompleteMultipartUploadCommand({ ...target, MultipartUpload: { Parts: parts } }),
      );
    },
    async abort() {
      // Parts of an unfinished upload are billed until aborted; a failed abort is left to the lifecycle rule.
      await client.send(new sdk.AbortMultipartUploadCommand(target)).catch(() => undefined);
    },
  };
}

/** Deletes export objects older than the retention, found by listing the prefix; other keys are left alone. */
async function purgeBucket(
  ctx: S3Context,
  prefix: string,
  now: number,
  retentionMs: number,
): Promise<number> {
  const { sdk, client, bucket } = ctx;
  const old: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      const finishedAt = readObjectTime(object.Key, object.LastModified, prefix);
      if (finishedAt !== undefined && now - finishedAt >= retentionMs) old.push(object.Key as string);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  let removed = 0;
  for (let i = 0; i < old.length; i += DELETE_BATCH) {
    const batch = old.slice(i, i + DELETE_BATCH).map((Key) => ({ Key }));
    const out = await client.send(
      new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: false } }),
    );
    const failed = out.Errors ?? [];
    if (failed.length > 0)
      throw new Error(`S3 export purge: ${failed.length} deletes failed (${failed[0]?.Code})`);
    removed += out.Deleted?.length ?? batch.length;
  }
  return removed;
}

/** When an export object was finished (its LastModified, never before its name's time); undefined if not ours. */
function readObjectTime(
  key: string | undefined,
  modified: Date | undefined,
  prefix: string,
): number | undefined {
  if (key === undefined || !key.startsWith(prefix)) return undefined;
  const [game, file, ...rest] = key.slice(prefix.length).split('/');
  if (rest.length > 0 || game === undefined || file === undefined || !isGameKey(game)) return undefined;
  const named = readExportFileTime(file);
  if (named === undefined) return undefined;
  return Math.max(modified?.getTime() ?? 0, named);
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
