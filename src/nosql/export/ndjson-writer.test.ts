// Export writer: gzip NDJSON streamed into the local store in bounded memory, progress logged, failures clean.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, gunzipSync } from 'node:zlib';
import { EJSON, Long, ObjectId } from 'bson';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalStore, type LocalExportStore } from './local-store.js';
import { type ExportLine, type ExportLogger, serializeLine, writeExport } from './ndjson-writer.js';
import { createExportFileName } from './store.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

let dataDir: string;
let store: LocalExportStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'playbase-ndjson-'));
  store = createLocalStore({ dataDir, publicBaseUrl: 'http://127.0.0.1:1', signingKey: randomBytes(32) });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function recordingLogger(): ExportLogger & { messages: string[] } {
  const messages: string[] = [];
  return { messages, info: (_obj, msg) => messages.push(msg) };
}

function exportPath(game: string, file: string) {
  return join(dataDir, 'exports', game, file);
}

async function* generateDocuments(count: number, sample: () => void): AsyncGenerator<ExportLine> {
  // A random payload per document keeps the gzip output near the input size, so buffering either is visible.
  const pool = randomBytes(1 << 20).toString('base64');
  for (let i = 0; i < count; i++) {
    const offset = (i * 7919) % (pool.length - 400);
    yield {
      collection: i % 2 === 0 ? 'players' : 'script.scores',
      document: {
        _id: { $numberInt: String(i) },
        name: `player-${i}`,
        blob: pool.slice(offset, offset + 400),
      },
    };
    if (i % 1000 === 0) sample();
  }
}

describe('writeExport', () => {
  it('200,000 documents → readable gzip NDJSON, every line back, RSS growth under 50 MB', async () => {
    const file = createExportFileName('mongo', T0);
    const logger = recordingLogger();
    globalThis.gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage.rss());
    };
    const result = await writeExport({
      source: generateDocuments(200_000, sample),
      store,
      game: 'bigGame',
      file,
      logger,
      gzipLevel: 1,
    });
    expect(result.lines).toBe(200_000);
    // About 100 MB of JSON that gzip barely shrinks (random payload): holding either the whole input or the
    // whole output in memory would cross the bound (measured: ~35 MB streaming, ~90 MB buffering the output).
    expect(result.bytes).toBeGreaterThan(55 * 1024 * 1024);
    expect(peak - baseline).toBeLessThan(50 * 1024 * 1024);

    let count = 0;
    let last: { collection: string; document: { name: string } } | undefined;
    const lines = createInterface({
      input: createReadStream(exportPath('bigGame', file)).pipe(createGunzip()),
    });
    for await (const text of lines) {
      last = JSON.parse(text);
      if (count === 0)
        expect(last).toMatchObject({ collection: 'players', document: { _id: { $numberInt: '0' } } });
      count += 1;
    }
    expect(count).toBe(200_000);
    expect(last).toMatchObject({ collection: 'script.scores', document: { name: 'player-199999' } });
    expect(logger.messages.filter((m) => m.startsWith('exported ')).length).toBe(2);
    expect(logger.messages).toContain('exported 100000 documents');
  });

  it('canonical extended JSON documents and data items → one object a line, types kept', async () => {
    const file = createExportFileName('data', T0);
    const id = new ObjectId();
    const doc = { _id: id, score: Long.fromString('9007199254740993'), at: new Date(T0) };
    const source: ExportLine[] = [
      { collection: 'players', document: EJSON.serialize(doc, { relaxed: false }) },
      { type: 'inventory', id: 'player-1', data: { slots: { $numberInt: '3' } }, version: 2 },
    ];
    const logger = recordingLogger();
    const result = await writeExport({ source, store, game: 'g1', file, logger, progressEvery: 1 });
    expect(result).toMatchObject({ lines: 2 });
    const text = gunzipSync(await readFileBytes(exportPath('g1', file))).toString('utf8');
    const lines = text.split('\n');
    expect(lines.length).toBe(3);
    expect(lines[2]).toBe('');
    const first = JSON.parse(lines[0] ?? '');
    expect(first.collection).toBe('players');
    expect(EJSON.deserialize(first.document, { relaxed: false })).toEqual(doc);
    expect(JSON.parse(lines[1] ?? '')).toEqual(source[1]);
    expect(logger.messages).toEqual(['exported 1 documents', 'exported 2 documents', 'export finished']);
  });

  it('source that fails partway → the error surfaces and no export file is left', async () => {
    const file = createExportFileName('mongo', T0);
    async function* failing(): AsyncGenerator<ExportLine> {
      for (let i = 0; i < 50_000; i++) yield { collection: 'c', document: { i } };
      throw new Error('database went away');
    }
    await expect(
      writeExport({ source: failing(), store, game: 'g1', file, logger: recordingLogger() }),
    ).rejects.toThrow('database went away');
    expect(await readdir(join(dataDir, 'exports', 'g1'))).toEqual([]);
  });

  it('store that fails → the store error surfaces and the writer does not hang', async () => {
    const file = createExportFileName('mongo', T0);
    const broken = { ...store, write: () => Promise.reject(new Error('disk full')) };
    const source = generateDocuments(100_000, () => {});
    await expect(
      writeExport({ source, store: broken, game: 'g1', file, logger: recordingLogger() }),
    ).rejects.toThrow('disk full');
  });

  it('line naming both or neither a collection and a type → TypeError', () => {
    expect(() => serializeLine({ document: {} } as unknown as ExportLine)).toThrow(TypeError);
    expect(() => serializeLine({ collection: 'c', type: 't', id: 'x', data: {}, document: {} })).toThrow(
      TypeError,
    );
    expect(serializeLine({ collection: 'c', document: { a: 'line\nbreak' } })).toBe(
      '{"collection":"c","document":{"a":"line\\nbreak"}}',
    );
  });
});

async function readFileBytes(path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(path)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
