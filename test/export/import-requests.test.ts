// What an import request answers: content types, the first bad line named with nothing written, conflicts, the
// permission and the credential, an empty or too large body.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Headers, type ImportWorld, startImportWorld } from './import-world.js';

const ndjson = (lines: unknown[]) =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
const doc = (collection: string, document: Record<string, unknown>) => ({ collection, document });
const GOOD = [
  doc('player', { _id: 'g1', userName: 'good one' }),
  doc('script.things', { _id: { $oid: '5f1d7a2b9c8e4d3a2b1c0d9e' }, n: { $numberLong: '5' } }),
  doc('meta.words', { _id: 'w', list: ['a'] }),
];

describe(`import requests (${storeKind})`, () => {
  let w: ImportWorld;
  let apiKey: string;
  let owner: Headers;
  const rows = async (table: 'nosql_documents' | 'data_items', game = apiKey) =>
    Number(
      (
        await w.server.store.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${table} WHERE game_id = $1`,
          [game],
        )
      ).rows[0]?.n,
    );
  const mongo = (body: Buffer | string | undefined, type?: string, as = owner) =>
    w.post('mongo', apiKey, as, body, type);

  beforeAll(async () => {
    w = await startImportWorld();
    apiKey = (await w.newGame('requests')).apiKey;
    owner = await w.jwt(apiKey);
  }, 60_000);
  afterAll(async () => w?.close());

  it('gzip, x-gzip and NDJSON (with a charset) are taken; a gzip stream of no lines imports nothing → 200', async () => {
    const other = (await w.newGame('types')).apiKey;
    const as = await w.jwt(other);
    const cases: [Buffer | string, string, number][] = [
      [gzipSync(ndjson([GOOD[0]])), 'application/gzip', 1],
      [gzipSync(ndjson([GOOD[1]])), 'application/x-gzip', 1],
      [ndjson([GOOD[2]]), 'application/x-ndjson; charset=utf-8', 1],
      [gzipSync(''), 'application/gzip', 0],
    ];
    for (const [body, type, imported] of cases) {
      const res = await w.post('mongo', other, as, body, type);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().imported).toBe(imported);
    }
    expect(await rows('nosql_documents', other)).toBe(3);
    const listed = (await w.call('GET', `/preview/restv2/game/${other}/mongo/collections`, as)).json();
    expect(listed.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['script.things', 'meta.words']),
    );
  });

  it('a bad record → 400 IMPORT_BAD_RECORD naming its line (also in details); nothing of the file is written', async () => {
    const bad: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[1, 2]', /not a JSON object/],
      ['', /an empty line/],
      [JSON.stringify({ collection: 'player' }), /no "document" field/],
      [JSON.stringify({ ...GOOD[0], extra: 1 }), /unknown field "extra"/],
      [JSON.stringify(doc('stuff', { _id: 1 })), /stuff is not a system/],
      [JSON.stringify(doc('bad name!', { _id: 1 })), /Invalid collection name/],
      [JSON.stringify(doc('player', { userName: 'no id' })), /no _id/],
      [JSON.stringify(doc('player', { _id: 'x', $set: 1 })), /may not start with \$/],
      [JSON.stringify(doc('player', { _id: { $oid: 'xyz' } })), /\$oid/],
      [JSON.stringify(doc('player', { _id: 'x', n: { $numberLong: '99999999999999999999' } })), /int64/],
      [JSON.stringify(doc('player', { _id: [1] })), /array/],
    ];
    const before = await rows('nosql_documents');
    for (const [line, why] of bad) {
      const body = Buffer.concat([
        Buffer.from(
          ndjson([
            ...GOOD,
            ...GOOD.map((g) => doc('player', { ...g.document, _id: `${String(g.document._id)}2` })),
          ]),
        ),
        Buffer.from(`${line}\n`),
        Buffer.from(ndjson(GOOD)),
      ]);
      for (const [payload, type] of [
        [gzipSync(body), 'application/gzip'],
        [body, 'application/x-ndjson'],
      ] as const) {
        const res = await mongo(payload, type);
        expect(res.statusCode, `${line}: ${res.body}`).toBe(400);
        const answer = res.json();
        expect(answer.code).toBe('IMPORT_BAD_RECORD');
        expect(answer.message).toMatch(/^Line 7: /);
        expect(answer.message, line).toMatch(why);
        expect(answer.details).toEqual([{ line: 7, message: expect.any(String) }]);
      }
    }
    expect(await rows('nosql_documents')).toBe(before);
  });

  it('invalid UTF-8, and a line longer than the limit (32 MiB), name their line', async () => {
    const utf8 = Buffer.concat([Buffer.from(ndjson([GOOD[0]])), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]);
    const res = await mongo(utf8, 'application/x-ndjson');
    expect([res.statusCode, res.json().message]).toEqual([
      400,
      'Line 2: not valid UTF-8. Nothing was imported',
    ]);
    // 33 MiB without a newline, 33 KB once compressed: refused before it is held whole.
    const long = gzipSync(Buffer.concat([Buffer.from(ndjson(GOOD)), Buffer.alloc(33 * 1024 * 1024, 0x61)]));
    const tooLong = await mongo(long, 'application/gzip');
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().message).toBe(
      'Line 4: longer than 33554432 bytes (the limit of one line). Nothing was imported',
    );
  });

  it('not gzip, or a gzip stream cut short → 400 IMPORT_BAD_ENCODING; nothing written', async () => {
    const before = await rows('nosql_documents');
    const whole = gzipSync(
      ndjson(GOOD.map((g) => doc('player', { ...g.document, _id: `${String(g.document._id)}-cut` }))),
    );
    for (const body of [Buffer.from('plain text, not gzip'), whole.subarray(0, whole.length - 12)]) {
      const res = await mongo(body, 'application/gzip');
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('IMPORT_BAD_ENCODING');
    }
    expect(await rows('nosql_documents')).toBe(before);
  });

  it('no body, or zero bytes → 400 IMPORT_EMPTY_BODY', async () => {
    for (const [body, type] of [
      [undefined, undefined],
      ['', 'application/gzip'],
      ['', 'application/x-ndjson'],
    ] as const) {
      const res = await mongo(body, type);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('IMPORT_EMPTY_BODY');
    }
  });

  it('another Content-Type → 415 IMPORT_MEDIA_TYPE naming the two it takes', async () => {
    for (const type of [
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
    ]) {
      const res = await mongo('{"collection":"player","document":{"_id":1}}', type);
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toMatchObject({ code: 'IMPORT_MEDIA_TYPE' });
      expect(res.json().message).toContain('application/gzip or application/x-ndjson');
    }
  });

  it('the Data Explorer permission at level 2: a DataExplorer (level 1) or ReadOnly collaborator → 403, nothing written', async () => {
    const before = await rows('nosql_documents');
    for (const group of ['DataExplorer', 'ReadOnly']) {
      const as = await w.jwt(apiKey, group);
      for (const kind of ['mongo', 'data'] as const) {
        const res = await w.post(kind, apiKey, as, ndjson([GOOD[0]]), 'application/x-ndjson');
        expect(res.statusCode, `${group} ${kind}`).toBe(403);
        expect(res.json().message).toBe('Permission nosql.dataExplorer at level 2 required');
      }
    }
    expect(await rows('nosql_documents')).toBe(before);
  });

  it('no credential, an access token or an expired JWT → 401; another game’s JWT → 403', async () => {
    const body = ndjson([GOOD[0]]);
    const token = (await w.call('GET', '/restv2/auth/user', { authorization: w.server.adminBasic })).json()[
      'X-SVCAccessToken'
    ];
    const short = await w.jwt(apiKey, undefined, '?expireInSeconds=1');
    w.server.now.advance(2000);
    for (const kind of ['mongo', 'data'] as const) {
      for (const as of [{}, { 'x-svcaccesstoken': token }, short]) {
        const res = await w.post(kind, apiKey, as, body, 'application/x-ndjson');
        expect(res.statusCode, `${kind} ${Object.keys(as)}`).toBe(401);
      }
      const other = await w.jwt((await w.newGame('not mine')).apiKey);
      expect((await w.post(kind, apiKey, other, body, 'application/x-ndjson')).statusCode).toBe(403);
    }
  });

  it('an _id the collection holds, or one an earlier line gave → 409 IMPORT_CONFLICT naming the line; nothing written', async () => {
    const game = (await w.newGame('conflicts')).apiKey;
    const as = await w.jwt(game);
    expect((await w.post('mongo', game, as, ndjson(GOOD), 'application/x-ndjson')).statusCode).toBe(200);
    const fresh = (i: number) => doc('script.things', { _id: `fresh ${i}` });
    const cases: [unknown[], number, RegExp][] = [
      [
        [fresh(1), fresh(2), GOOD[1]],
        3,
        /collection script\.things already holds a document with _id \{"\$oid":"5f1d7a2b9c8e4d3a2b1c0d9e"\}/,
      ],
      [[fresh(1), fresh(2), fresh(3), fresh(2)], 4, /_id "fresh 2"/],
      // The same _id in two collections, or "5" and 5 in one, are different documents: the conflict is further on.
      [
        [
          doc('script.other', { _id: 'w' }),
          doc('script.x', { _id: 5 }),
          doc('script.x', { _id: '5' }),
          GOOD[0],
        ],
        4,
        /collection player/,
      ],
    ];
    const before = await rows('nosql_documents', game);
    for (const [lines, line, why] of cases) {
      const res = await w.post('mongo', game, as, gzipSync(ndjson(lines)), 'application/gzip');
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'IMPORT_CONFLICT', details: [{ line }] });
      expect(res.json().message).toMatch(why);
    }
    expect(await rows('nosql_documents', game)).toBe(before);
  });

  it('a document breaking a unique index → 409 naming the line and the index; nothing written', async () => {
    const game = (await w.newGame('unique')).apiKey;
    const as = await w.jwt(game);
    expect(
      (await w.call('POST', `/preview/restv2/game/${game}/mongo/collection/mail/runtime`, as, {})).statusCode,
    ).toBe(200);
    const index = await w.call(
      'POST',
      `/preview/restv2/game/${game}/mongo/collection/script.mail/index/by_email?unique=true`,
      as,
      { email: 1 },
    );
    expect(index.statusCode, index.body).toBe(200);
    const lines = Array.from({ length: 1500 }, (_, i) => doc('script.mail', { _id: i, email: `u${i}@x` }));
    lines[1200] = doc('script.mail', { _id: 1200, email: 'u7@x' });
    const res = await w.post('mongo', game, as, ndjson(lines), 'application/x-ndjson');
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ code: 'IMPORT_CONFLICT', details: [{ line: 1201 }] });
    expect(res.json().message).toContain('by_email');
    expect(await rows('nosql_documents', game)).toBe(0);
  });

  it('data: a live item of the same type and id → 409 naming the line; an expired one is replaced', async () => {
    const game = (await w.newGame('items')).apiKey;
    const as = await w.jwt(game);
    const put = (id: string, ttl?: number) =>
      w.call('PUT', `/preview/restv2/game/${game}/data/Note/${id}`, as, {
        data: { title: id },
        ...(ttl ? { ttl } : {}),
      });
    expect((await put('live')).statusCode).toBe(200);
    expect((await put('expiring', 1)).statusCode).toBe(200);
    w.server.now.advance(2000);
    const item = (id: string) => ({ type: 'Note', id, data: { title: `imported ${id}` } });
    const refused = await w.post(
      'data',
      game,
      as,
      ndjson([item('new'), item('live')]),
      'application/x-ndjson',
    );
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().message).toBe(
      'Line 2: data type Note already holds an item live. Nothing was imported',
    );
    const taken = await w.post(
      'data',
      game,
      as,
      ndjson([item('new'), item('expiring')]),
      'application/x-ndjson',
    );
    expect(taken.statusCode, taken.body).toBe(200);
    const read = await w.call('GET', `/preview/restv2/game/${game}/data/Note/expiring`, as);
    expect(read.json()).toMatchObject({ data: { title: 'imported expiring' }, version: 1, expiresAt: null });
  });

  it('data: bad items → 400 naming the line (shape, id, version, dates, an indexed field of the wrong type)', async () => {
    const before = await rows('data_items');
    const good = { type: 'Score', id: 'a', data: { player: 'p', points: 1 } };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...good, extra: 1 }, /unknown field "extra"/],
      [{ type: 'Score', id: 'a' }, /no "data" field/],
      [{ ...good, id: 'x'.repeat(101) }, /1 to 100 characters/],
      [{ ...good, type: '' }, /type must be/],
      [{ ...good, data: [1] }, /data must be a JSON object/],
      [{ ...good, version: { $numberLong: '0' } }, /version must be an integer of 1 or more/],
      [{ ...good, expiresAt: 'tomorrow' }, /expiresAt must be a date/],
      [{ ...good, updatedAt: { $date: 'nope' } }, /updatedAt/],
      [{ ...good, data: { player: 5 } }, /Indexed field player must hold a string/],
    ];
    for (const [line, why] of bad) {
      const res = await w.post(
        'data',
        apiKey,
        owner,
        ndjson([{ ...good, id: 'ok' }, line]),
        'application/x-ndjson',
      );
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(/^Line 2: /);
      expect(res.json().message).toMatch(why);
    }
    expect(await rows('data_items')).toBe(before);
  });

  it('Live and Preview are separate: an import into Live writes Live only', async () => {
    const game = (await w.newGame('stages')).apiKey;
    const as = await w.jwt(game);
    const res = await w.post('mongo', game, as, ndjson([GOOD[0]]), 'application/x-ndjson', 'live');
    expect(res.statusCode, res.body).toBe(200);
    const find = (stage: string) =>
      w.call('POST', `/${stage}/restv2/game/${game}/mongo/collection/player/find`, as, {});
    expect((await find('live')).json()).toEqual([{ _id: 'g1', userName: 'good one' }]);
    expect((await find('preview')).json()).toEqual([]);
  });
});
