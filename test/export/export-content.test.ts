// What the two exports contain: export, download, and compare with the stored data; private fields; one snapshot;
// progress in the log; the connection always released.
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { EJSON } from 'bson';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeExport } from '../../src/nosql/export/ndjson-writer.js';
import type { ExportStore } from '../../src/nosql/export/store.js';
import { readCollectionLines } from '../../src/nosql/mongo-export.js';
import { fromWire, toWire } from '../../src/query/values.js';
import { type DataWorld, startDataWorld } from '../data/world.js';
import { storeKind } from '../harness.js';

type Line = Record<string, unknown>;
const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk, _enc, done) {
    for (const text of String(chunk).split('\n')) if (text.trim()) logLines.push(JSON.parse(text));
    done();
  },
});

let w: DataWorld;
beforeAll(async () => {
  w = await startDataWorld({}, pino({ level: 'info' }, logStream));
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const mongo = (stage: string, path: string, body?: unknown) =>
  w.call(
    body === undefined ? 'GET' : 'POST',
    `/${stage}/restv2/game/${w.apiKey}/mongo/${path}`,
    w.owner,
    body,
  );

async function exportAndDownload(
  kind: 'mongo' | 'data',
  stage = 'preview',
): Promise<{ lines: Line[]; answer: Line }> {
  const res = await w.call('GET', `/${stage}/restv2/game/${w.apiKey}/${kind}/export`, w.explorer);
  expect(res.statusCode).toBe(200);
  const answer = res.json() as Line;
  const url = new URL(answer.url as string);
  const file = await w.call('GET', `${url.pathname}${url.search}`, {});
  expect(file.statusCode).toBe(200);
  const text = gunzipSync(file.rawPayload).toString('utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return {
    lines: text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line),
    answer,
  };
}

/** Relaxed wire JSON of a canonical document, to compare with what find answers. */
const relaxed = (canonical: unknown) => JSON.stringify(toWire(fromWire(canonical)));

const PLAYER = {
  _id: 'p1',
  userName: 'ann',
  displayName: 'Ann',
  password: 'scrypt$hash',
  passwordHash: 'h',
  authTokens: [{ token: 't1' }],
  currency1: 5,
  scriptData: { level: 3, location: 'owner data is kept' },
  externalIds: { FB: '123' },
  location: { country: 'FR', city: 'Paris', latitude: 48.8, longitude: 2.3 },
  IPAddress: '10.0.0.1',
  created: { $date: '2026-01-02T03:04:05.000Z' },
};

describe('mongo export', () => {
  beforeAll(async () => {
    expect((await mongo('preview', 'collection/player/insert', PLAYER)).statusCode).toBe(200);
    expect(
      (await mongo('preview', 'collection/player/insert', { _id: 'p2', userName: 'bob', password: 'x' }))
        .statusCode,
    ).toBe(200);
    await mongo('preview', 'collection/externalAuthentication/insert', {
      _id: 'e1',
      provider: 'FB',
      accessToken: 'fb-access-token',
      player: 'p1',
    });
    expect((await mongo('preview', 'collection/counter/runtime', {})).statusCode).toBe(200);
    await mongo('preview', 'collection/script.counter/insert', [
      { _id: 5, z: 1, a: { $numberLong: '9007199254740993' }, password: 'not a player: kept' },
      { _id: '5', d: 1.5, n: null, arr: [1, { y: 2, x: 1 }] },
      { oid: { $oid: '5f1d7a2b9c8e4d3a2b1c0d9e' }, when: { $date: '2030-05-06T07:08:09.123Z' } },
    ]);
    await mongo('preview', 'collection/words/meta', {});
    await mongo('preview', 'collection/meta.words/insert', { _id: 'adjectives', list: ['big', 'small'] });
    await mongo('live', 'collection/player/insert', { _id: 'live-only', userName: 'zed' });
  });

  it('every document of the stage, one line each, equal to what find answers (private fields aside)', async () => {
    const { lines, answer } = await exportAndDownload('mongo');
    expect(answer.count).toBe(lines.length);
    const byCollection = new Map<string, string[]>();
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(['collection', 'document']);
      const list = byCollection.get(line.collection as string) ?? [];
      list.push(relaxed(line.document));
      byCollection.set(line.collection as string, list);
    }
    expect([...byCollection.keys()].sort()).toEqual([
      'externalAuthentication',
      'meta.words',
      'player',
      'script.counter',
    ]);
    const hidden = new Set([
      'password',
      'passwordHash',
      'authTokens',
      'location',
      'IPAddress',
      'accessToken',
    ]);
    for (const [collection, exported] of byCollection) {
      const found = (await mongo('preview', `collection/${collection}/find`, {})).json() as Record<
        string,
        unknown
      >[];
      const redact = (d: Record<string, unknown>) =>
        ['player', 'externalAuthentication'].includes(collection)
          ? Object.fromEntries(Object.entries(d).filter(([k]) => !hidden.has(k)))
          : d;
      // Same documents, same field order, same values and types.
      expect([...exported].sort()).toEqual(found.map((d) => JSON.stringify(redact(d))).sort());
    }
  });

  it('player passwords, auth tokens and location are left out; the rest of the player is there', async () => {
    const { lines } = await exportAndDownload('mongo');
    const p1 = lines.find((l) => l.collection === 'player' && (l.document as Line)._id === 'p1')
      ?.document as Line;
    expect(Object.keys(p1)).toEqual([
      '_id',
      'userName',
      'displayName',
      'currency1',
      'scriptData',
      'externalIds',
      'created',
    ]);
    const text = JSON.stringify(lines);
    for (const secret of ['scrypt$hash', 't1', 'Paris', '10.0.0.1', 'fb-access-token'])
      expect(text).not.toContain(secret);
    expect(text).toContain('not a player: kept');
  });

  it('values are canonical extended JSON and EJSON reads each line back', async () => {
    const { lines } = await exportAndDownload('mongo');
    const docs = lines.filter((l) => l.collection === 'script.counter').map((l) => l.document as Line);
    const five = docs.find((d) => JSON.stringify(d._id) === '{"$numberInt":"5"}');
    expect(five).toEqual({
      _id: { $numberInt: '5' },
      z: { $numberInt: '1' },
      a: { $numberLong: '9007199254740993' },
      password: 'not a player: kept',
    });
    const generated = docs.find((d) => (d._id as Line).$oid !== undefined) as Line;
    expect(generated.when).toEqual({
      $date: { $numberLong: String(Date.parse('2030-05-06T07:08:09.123Z')) },
    });
    for (const line of lines) {
      const back = EJSON.deserialize(line.document as Record<string, unknown>, { relaxed: false });
      expect(JSON.stringify(EJSON.serialize(back, { relaxed: false }))).toBe(JSON.stringify(line.document));
    }
  });

  it('the Live stage exports only its own documents', async () => {
    const { lines } = await exportAndDownload('mongo', 'live');
    expect(lines).toEqual([{ collection: 'player', document: { _id: 'live-only', userName: 'zed' } }]);
  });
});

describe('data export', () => {
  it('every live item of every type, with version and expiry; expired items are not exported', async () => {
    const put = (path: string, body: unknown) => w.data('PUT', 'preview', path, body);
    await put('Score/s1', { data: { player: 'ann', points: 3, at: { $date: '2026-03-04T00:00:00Z' } } });
    await put('Score/s1', { data: { player: 'ann', points: 4, big: { $numberLong: '12345678901234' } } });
    await put('Score/s2', { data: { player: 'bob' }, ttl: 3600 });
    await put('Note/gone', { data: { title: 'soon gone' }, ttl: 1 });
    await put('Note/n1', { data: { title: 'kept', z: 1, a: 2 } });
    w.server.now.advance(1000);
    const { lines, answer } = await exportAndDownload('data');
    expect(answer.count).toBe(3);
    expect(lines.map((l) => `${l.type}/${l.id}`)).toEqual(['Note/n1', 'Score/s1', 'Score/s2']);
    for (const line of lines) {
      const item = (
        await w.data('GET', 'preview', `${line.type}/${encodeURIComponent(line.id as string)}`)
      ).json();
      expect(relaxed(line.data)).toBe(JSON.stringify(item.data));
      expect(line.version).toEqual({ $numberLong: String(item.version) });
      expect(line.expiresAt).toEqual(
        item.expiresAt === null ? null : { $date: { $numberLong: String(Date.parse(item.expiresAt)) } },
      );
      expect(Object.keys(line)).toEqual(['type', 'id', 'data', 'version', 'expiresAt', 'updatedAt']);
    }
    expect(lines[1]?.data).toEqual({
      player: 'ann',
      points: { $numberInt: '4' },
      big: { $numberLong: '12345678901234' },
    });
    expect(JSON.stringify(lines)).not.toContain('soon gone');
  });

  it('a game with no items → an empty file (count 0)', async () => {
    const res = await w.call(
      'GET',
      `/live/restv2/game/${w.otherApiKey}/data/export`,
      await w.jwtOf('admin', w.otherApiKey),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().count).toBe(0);
    const url = new URL(res.json().url);
    expect(gunzipSync((await w.call('GET', `${url.pathname}${url.search}`, {})).rawPayload).length).toBe(0);
  });
});

describe('large exports', () => {
  it('100,000 documents: all exported, progress in the log, an "export finished" line with the count', async () => {
    await w.server.store.pool.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
       SELECT $1, 'live', 'script.bulk', '"k' || g || '"',
              jsonb_build_object('_id', 'k' || g, 'n', g, 'name', 'player ' || g, '$o', jsonb_build_array('_id', 'n', 'name'))
       FROM generate_series(1, 100000) g`,
      [w.apiKey],
    );
    logLines.length = 0;
    const res = await w.call('GET', `/live/restv2/game/${w.apiKey}/mongo/export`, w.owner);
    expect(res.statusCode).toBe(200);
    expect(res.json().count).toBe(100_001);
    const progress = logLines.filter((l) => l.msg === 'exported 100000 documents');
    expect(progress).toHaveLength(1);
    expect(progress[0]).toMatchObject({ game: w.apiKey, lines: 100_000 });
    expect(logLines.find((l) => l.msg === 'export finished')).toMatchObject({ lines: 100_001 });
    const url = new URL(res.json().url);
    const text = gunzipSync((await w.call('GET', `${url.pathname}${url.search}`, {})).rawPayload).toString();
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(100_001);
    expect(lines).toContain(
      '{"collection":"script.bulk","document":{"_id":"k77","n":{"$numberInt":"77"},"name":"player 77"}}',
    );
    await w.server.store.pool.query(`DELETE FROM nosql_documents WHERE collection = 'script.bulk'`);
  }, 60_000);

  it('a failing export store → the export fails and the database connection is released', async () => {
    const failing: ExportStore = {
      async write(_game, _file, body) {
        let n = 0;
        for await (const _chunk of body as AsyncIterable<Uint8Array>)
          if (++n > 1) throw new Error('disk full');
        throw new Error('disk full');
      },
      presign: async () => '',
      purgeExpired: async () => 0,
    };
    const source = readCollectionLines(w.server.store.pool, w.apiKey, 'preview', 2);
    const silent = { info() {} };
    await expect(
      writeExport({
        source,
        store: failing,
        game: w.apiKey,
        file: 'mongo-1795000000000-0123456789abcdef.ndjson.gz',
        logger: silent,
      }),
    ).rejects.toThrow('disk full');
    // On the embedded store the pool has one connection: a leaked one would hang this query.
    const answered = await Promise.race([
      w.server.store.pool.query('SELECT 1 AS one').then((r) => r.rows[0].one),
      new Promise((resolve) => setTimeout(() => resolve('hung'), 3000)),
    ]);
    expect(answered).toBe(1);
  });
});

describe.skipIf(storeKind !== 'postgres')(
  'one snapshot (PostgreSQL: other connections write during the read)',
  () => {
    it('documents inserted, changed and removed while an export reads are not seen by it', async () => {
      const pool = w.server.store.pool;
      const before = (await mongo('preview', 'collection/script.counter/find', {})).json() as unknown[];
      const lines = readCollectionLines(pool, w.apiKey, 'preview', 1);
      const first = await lines.next();
      expect(first.done).toBe(false);
      await mongo('preview', 'collection/script.counter/insert', { _id: 'added later' });
      await mongo('preview', 'collection/script.counter/remove', { query: { _id: '5' } });
      await mongo('preview', 'collection/player/update', {
        query: { _id: 'p2' },
        update: { $set: { userName: 'changed' } },
      });
      const all = [first.value];
      for await (const line of lines) all.push(line);
      const counter = all.filter((l) => l.collection === 'script.counter').map((l) => relaxed(l.document));
      expect(counter.sort()).toEqual(before.map((d) => JSON.stringify(d)).sort());
      const p2 = all.find((l) => l.collection === 'player' && (l.document as Line)._id === 'p2');
      expect(p2).toBeDefined();
      expect((p2 as { document: Line }).document.userName).toBe('bob');
    });
  },
);

describe('one snapshot (embedded store)', () => {
  it.skipIf(storeKind !== 'pglite')(
    'a write waits until the export has read everything (one connection)',
    async () => {
      const lines = readCollectionLines(w.server.store.pool, w.apiKey, 'preview', 1);
      const first = await lines.next();
      expect(first.done).toBe(false);
      let written = false;
      const write = mongo('preview', 'collection/script.counter/insert', { _id: 'after export' }).then(() => {
        written = true;
      });
      const rest = [];
      for await (const line of lines) rest.push(line);
      expect(written).toBe(false);
      expect(JSON.stringify(rest)).not.toContain('after export');
      await write;
      expect(written).toBe(true);
    },
  );
});
