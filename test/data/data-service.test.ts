// The data service over HTTP: items, TTL, versionCheck, types by stage, bad inputs, 401 and 403 on every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredItems } from '../../src/nosql/data-service.js';
import { type DataWorld, startDataWorld } from './world.js';

let w: DataWorld;
beforeAll(async () => {
  w = await startDataWorld();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const put = (stage: 'live' | 'preview', path: string, body: unknown) => w.data('PUT', stage, path, body);

describe('items', () => {
  it('GET /data/datatypes → the declared types with their indexed fields, in both stages', async () => {
    for (const stage of ['live', 'preview'] as const) {
      const res = await w.data('GET', stage, 'datatypes');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        {
          shortCode: 'Score',
          name: 'Scores',
          fields: [
            { name: 'player', type: 'string' },
            { name: 'points', type: 'number' },
          ],
        },
        { shortCode: 'Note', name: 'Notes', fields: [{ name: 'title', type: 'string' }] },
      ]);
    }
  });

  it('PUT then GET → the data as sent (extended JSON kept), version 1, no expiry', async () => {
    const data = {
      player: 'ann',
      points: 12.5,
      big: { $numberLong: '9007199254740993' },
      when: { $date: '2026-01-02T03:04:05.000Z' },
      z: 1,
      a: [1, 'x'],
    };
    const res = await put('preview', 'Score/item-1', { data });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ type: 'Score', id: 'item-1', data, version: 1, expiresAt: null });
    const got = await w.data('GET', 'preview', 'Score/item-1');
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ type: 'Score', id: 'item-1', data, version: 1, expiresAt: null });
    expect(Object.keys(got.json().data)).toEqual(Object.keys(data));
  });

  it('stages are separate: an item put in Preview is not in Live', async () => {
    expect((await put('preview', 'Note/stage-1', { data: { title: 'p' } })).statusCode).toBe(200);
    const live = await w.data('GET', 'live', 'Note/stage-1');
    expect(live.statusCode).toBe(404);
    expect(live.json().code).toBe('DATA_ITEM_NOT_FOUND');
  });

  it('item ids with spaces, slashes (encoded) and unicode round-trip', async () => {
    const id = 'a b/ü✓';
    const path = `Note/${encodeURIComponent(id)}`;
    expect((await put('preview', path, { data: { title: 't' } })).statusCode).toBe(200);
    const got = await w.data('GET', 'preview', path);
    expect(got.statusCode).toBe(200);
    expect(got.json().id).toBe(id);
  });

  it('DELETE an item → 200, then GET → 404 and DELETE again → 404', async () => {
    await put('preview', 'Note/del-1', { data: { title: 'x' } });
    const del = await w.data('DELETE', 'preview', 'Note/del-1');
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'SUCCESS', deletedCount: 1 });
    expect((await w.data('GET', 'preview', 'Note/del-1')).statusCode).toBe(404);
    const again = await w.data('DELETE', 'preview', 'Note/del-1');
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('DATA_ITEM_NOT_FOUND');
  });

  it('DELETE /data/{type} → every item of that type gone, other types kept, count of live items', async () => {
    for (const id of ['x1', 'x2', 'x3']) await put('live', `Score/${id}`, { data: { player: id } });
    await put('live', 'Note/keep', { data: { title: 'keep' } });
    const res = await w.data('DELETE', 'live', 'Score');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'SUCCESS', deletedCount: 3 });
    const left = await w.data('POST', 'live', 'Score/query', {});
    expect(left.json().items).toEqual([]);
    expect((await w.data('GET', 'live', 'Note/keep')).statusCode).toBe(200);
  });
});

describe('types by stage', () => {
  it('a type added to the working configuration but not published → Preview 200, Live 404 DATA_TYPE_NOT_FOUND', async () => {
    const admin = { authorization: w.server.adminBasic };
    const added = await w.call('POST', `/restv2/game/${w.apiKey}/config/~indexedTypes`, admin, {
      shortCode: 'Draft',
      name: 'Draft',
      fields: [],
    });
    expect(added.statusCode).toBe(201);
    expect((await put('preview', 'Draft/d1', { data: { a: 1 } })).statusCode).toBe(200);
    for (const [method, path, body] of [
      ['PUT', 'Draft/d1', { data: {} }],
      ['GET', 'Draft/d1', undefined],
      ['DELETE', 'Draft/d1', undefined],
      ['DELETE', 'Draft', undefined],
      ['POST', 'Draft/query', {}],
    ] as const) {
      const res = await w.data(method, 'live', path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().code).toBe('DATA_TYPE_NOT_FOUND');
    }
    const liveTypes = (await w.data('GET', 'live', 'datatypes')).json() as { shortCode: string }[];
    expect(liveTypes.map((t) => t.shortCode)).not.toContain('Draft');
  });

  it('an undeclared type → 404 DATA_TYPE_NOT_FOUND', async () => {
    const res = await put('preview', 'Nope/1', { data: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('DATA_TYPE_NOT_FOUND');
  });
});

describe('TTL', () => {
  it('an item past its TTL is gone for GET, query, DELETE; writing it again starts at version 1', async () => {
    const res = await put('preview', 'Score/ttl-1', { data: { player: 'ttl', points: 1 }, ttl: 60 });
    expect(res.statusCode).toBe(200);
    expect(res.json().expiresAt).toBe(new Date(w.server.now.value + 60_000).toISOString());
    await put('preview', 'Score/ttl-1', { data: { player: 'ttl', points: 2 }, ttl: 60 });
    const query = { query: { condition: 'AND', rules: [{ field: 'player', operator: 'EQ', value: 'ttl' }] } };
    w.server.now.advance(59_999);
    expect((await w.data('GET', 'preview', 'Score/ttl-1')).json().version).toBe(2);
    expect((await w.data('POST', 'preview', 'Score/query', query)).json().items).toHaveLength(1);
    w.server.now.advance(1);
    expect((await w.data('GET', 'preview', 'Score/ttl-1')).statusCode).toBe(404);
    expect((await w.data('POST', 'preview', 'Score/query', query)).json().items).toEqual([]);
    expect((await w.data('DELETE', 'preview', 'Score/ttl-1')).statusCode).toBe(404);
    const again = await put('preview', 'Score/ttl-1', { data: { player: 'ttl', points: 3 } });
    expect(again.json()).toMatchObject({ version: 1, expiresAt: null });
  });

  it('ttl 0 or null → no expiry; a PUT without ttl removes an earlier TTL', async () => {
    expect((await put('preview', 'Note/t0', { data: { title: 'a' }, ttl: 0 })).json().expiresAt).toBeNull();
    expect(
      (await put('preview', 'Note/t0', { data: { title: 'a' }, ttl: null })).json().expiresAt,
    ).toBeNull();
    await put('preview', 'Note/t1', { data: { title: 'a' }, ttl: 5 });
    await put('preview', 'Note/t1', { data: { title: 'b' } });
    w.server.now.advance(10_000);
    expect((await w.data('GET', 'preview', 'Note/t1')).statusCode).toBe(200);
  });

  it('the background purge deletes expired rows and keeps the others', async () => {
    const pool = w.server.store.pool;
    await put('live', 'Note/purge-old', { data: { title: 'old' }, ttl: 1 });
    await put('live', 'Note/purge-new', { data: { title: 'new' }, ttl: 3600 });
    const count = async (id: string) =>
      Number((await pool.query('SELECT count(*) AS n FROM data_items WHERE item_id = $1', [id])).rows[0].n);
    w.server.now.advance(2000);
    expect(await count('purge-old')).toBe(1);
    expect(await purgeExpiredItems(pool, w.server.now.value)).toBeGreaterThanOrEqual(1);
    expect(await count('purge-old')).toBe(0);
    expect(await count('purge-new')).toBe(1);
  });

  it('purge works in batches and stops after maxBatches', async () => {
    const pool = w.server.store.pool;
    for (let i = 0; i < 5; i++) await put('live', `Note/batch-${i}`, { data: { title: 't' }, ttl: 1 });
    w.server.now.advance(2000);
    expect(await purgeExpiredItems(pool, w.server.now.value, 2, 1)).toBe(2);
    expect(await purgeExpiredItems(pool, w.server.now.value, 2, 10)).toBe(3);
  });
});

describe('versionCheck', () => {
  it('versionCheck 0 writes only when absent; a second one → 409 and the data is unchanged', async () => {
    const first = await put('preview', 'Note/v0', { data: { title: 'one' }, versionCheck: 0 });
    expect(first.statusCode).toBe(200);
    expect(first.json().version).toBe(1);
    const second = await put('preview', 'Note/v0', { data: { title: 'two' }, versionCheck: 0 });
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('DATA_VERSION_CONFLICT');
    expect((await w.data('GET', 'preview', 'Note/v0')).json().data).toEqual({ title: 'one' });
  });

  it('the stored version writes and raises it; a stale version → 409; a missing item with versionCheck 3 → 409', async () => {
    await put('preview', 'Note/v1', { data: { title: 'a' } });
    await put('preview', 'Note/v1', { data: { title: 'b' } });
    const ok = await put('preview', 'Note/v1', { data: { title: 'c' }, versionCheck: 2 });
    expect(ok.json()).toMatchObject({ version: 3, data: { title: 'c' } });
    const stale = await put('preview', 'Note/v1', { data: { title: 'd' }, versionCheck: 2 });
    expect(stale.statusCode).toBe(409);
    expect((await w.data('GET', 'preview', 'Note/v1')).json()).toMatchObject({
      version: 3,
      data: { title: 'c' },
    });
    const missing = await put('preview', 'Note/never', { data: { title: 'x' }, versionCheck: 3 });
    expect(missing.statusCode).toBe(409);
    expect((await w.data('GET', 'preview', 'Note/never')).statusCode).toBe(404);
  });

  it('an expired item counts as version 0: versionCheck 0 writes over it, its old version → 409', async () => {
    await put('preview', 'Note/vx', { data: { title: 'a' }, ttl: 1 });
    await put('preview', 'Note/vx', { data: { title: 'b' }, ttl: 1 });
    w.server.now.advance(1000);
    expect((await put('preview', 'Note/vx', { data: { title: 'c' }, versionCheck: 2 })).statusCode).toBe(409);
    const res = await put('preview', 'Note/vx', { data: { title: 'c' }, versionCheck: 0 });
    expect(res.json()).toMatchObject({ version: 1, data: { title: 'c' } });
  });

  it('DELETE ?versionCheck: stale → 409 and kept; current → deleted', async () => {
    await put('preview', 'Note/dv', { data: { title: 'a' } });
    const stale = await w.data('DELETE', 'preview', 'Note/dv?versionCheck=5');
    expect(stale.statusCode).toBe(409);
    expect((await w.data('GET', 'preview', 'Note/dv')).statusCode).toBe(200);
    expect((await w.data('DELETE', 'preview', 'Note/dv?versionCheck=1')).statusCode).toBe(200);
    expect((await w.data('GET', 'preview', 'Note/dv')).statusCode).toBe(404);
  });

  it('10 concurrent PUTs with the same versionCheck → exactly one 200, the others 409', async () => {
    await put('preview', 'Note/race', { data: { title: 'start' } });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        put('preview', 'Note/race', { data: { title: `w${i}` }, versionCheck: 1 }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(9);
    expect((await w.data('GET', 'preview', 'Note/race')).json().version).toBe(2);
  });
});

describe('bad inputs', () => {
  const cases: [string, unknown, number, string][] = [
    ['data missing', {}, 400, 'VALIDATION_FAILED'],
    ['data an array', { data: [1] }, 400, 'DATA_BAD_BODY'],
    ['data a string', { data: 'x' }, 400, 'DATA_BAD_BODY'],
    ['unknown body field', { data: {}, tll: 5 }, 400, 'VALIDATION_FAILED'],
    ['negative ttl', { data: {}, ttl: -1 }, 400, 'VALIDATION_FAILED'],
    ['fractional ttl', { data: {}, ttl: 1.5 }, 400, 'VALIDATION_FAILED'],
    ['ttl over ten years', { data: {}, ttl: 400_000_000 }, 400, 'VALIDATION_FAILED'],
    ['negative versionCheck', { data: {}, versionCheck: -1 }, 400, 'VALIDATION_FAILED'],
    ['a field name starting with $', { data: { $set: 1 } }, 400, 'QUERY_BAD_VALUE'],
    ['bad extended JSON', { data: { d: { $date: 'yesterday' } } }, 400, 'QUERY_BAD_VALUE'],
    ['string field given a number', { data: { player: 5 } }, 400, 'DATA_FIELD_TYPE_MISMATCH'],
    ['number field given a string', { data: { points: '5' } }, 400, 'DATA_FIELD_TYPE_MISMATCH'],
    [
      'number field given a long',
      { data: { points: { $numberLong: '5' } } },
      400,
      'DATA_FIELD_TYPE_MISMATCH',
    ],
    [
      'number field given NaN',
      { data: { points: { $numberDouble: 'NaN' } } },
      400,
      'DATA_FIELD_TYPE_MISMATCH',
    ],
  ];
  for (const [name, body, status, code] of cases) {
    it(`PUT with ${name} → ${status} ${code}`, async () => {
      const res = await put('preview', 'Score/bad', body);
      expect(res.statusCode).toBe(status);
      expect(res.json().code).toBe(code);
    });
  }

  // JSON bodies are not coerced (docs/decisions.md, "Strict JSON bodies"): each wrong JSON type is named.
  const wrongTypes: [string, string, unknown, string][] = [
    ['PUT', 'Score/typed', { data: {}, ttl: '60' }, 'body.ttl'],
    ['PUT', 'Score/typed', { data: {}, ttl: true }, 'body.ttl'],
    ['PUT', 'Score/typed', { data: {}, versionCheck: '0' }, 'body.versionCheck'],
    ['PUT', 'Score/typed', { data: {}, versionCheck: null }, 'body.versionCheck'],
  ];
  for (const [method, path, body, field] of wrongTypes) {
    it(`${method} ${path} ${JSON.stringify(body)} → 400 VALIDATION_FAILED naming ${field}; nothing written`, async () => {
      const res = await w.data(method, 'preview', path, body);
      expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      expect(res.json().message).toContain(field);
      expect((await w.data('GET', 'preview', 'Score/typed')).statusCode).toBe(404);
    });
  }

  it('an indexed field holding null is accepted (no value)', async () => {
    expect((await put('preview', 'Score/null-field', { data: { player: null } })).statusCode).toBe(200);
  });

  it('item id with a control character → 400 DATA_BAD_ITEM_ID; of 101 characters → 414; of 100 → accepted', async () => {
    const res = await w.data('GET', 'preview', 'Score/a%01b');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('DATA_BAD_ITEM_ID');
    expect((await w.data('GET', 'preview', `Score/${'x'.repeat(101)}`)).statusCode).toBe(414);
    expect((await put('preview', `Score/${'x'.repeat(100)}`, { data: {} })).statusCode).toBe(200);
  });

  it('a body that is not JSON → 400 INVALID_JSON', async () => {
    const res = await w.server.app.inject({
      method: 'PUT',
      url: `/preview/restv2/game/${w.apiKey}/data/Score/x`,
      headers: { ...w.owner, 'content-type': 'application/json' },
      payload: '{"data":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_JSON');
  });
});

describe('authentication and permissions', () => {
  const routes: [string, string, unknown][] = [
    ['GET', 'datatypes', undefined],
    ['GET', 'Note/auth', undefined],
    ['PUT', 'Note/auth', { data: { title: 'x' } }],
    ['DELETE', 'Note/auth', undefined],
    ['DELETE', 'Note', undefined],
    ['POST', 'Note/query', {}],
  ];
  const writes = new Set(['PUT', 'DELETE']);

  it('no credential → 401 on every route', async () => {
    for (const [method, path, body] of routes) {
      const res = await w.data(method, 'preview', path, body, {});
      expect(res.statusCode, `${method} ${path}`).toBe(401);
    }
  });

  it('an access token or Basic instead of a JWT → 401 on every route', async () => {
    const token = await w.call('GET', '/restv2/auth/user', { authorization: w.server.adminBasic });
    const asToken = { 'x-svcaccesstoken': token.json()['X-SVCAccessToken'] as string };
    for (const as of [asToken, { authorization: w.server.adminBasic }]) {
      for (const [method, path, body] of routes) {
        const res = await w.data(method, 'preview', path, body, as);
        expect(res.statusCode, `${method} ${path}`).toBe(401);
      }
    }
  });

  it('an expired JWT → 401 on every route', async () => {
    const short = await w.jwtOf('admin', w.apiKey, '?expireInSeconds=1');
    w.server.now.advance(2000);
    for (const [method, path, body] of routes) {
      const res = await w.data(method, 'preview', path, body, short);
      expect(res.statusCode, `${method} ${path}`).toBe(401);
    }
  });

  it("another game's JWT → 403 on every route", async () => {
    const other = await w.jwtOf('admin', w.otherApiKey);
    for (const [method, path, body] of routes) {
      const res = await w.data(method, 'preview', path, body, other);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
  });

  it('nosql read only (ReadOnly group) → reads 200/404, writes 403', async () => {
    for (const [method, path, body] of routes) {
      const res = await w.data(method, 'preview', path, body, w.reader);
      if (writes.has(method)) expect(res.statusCode, `${method} ${path}`).toBe(403);
      else expect([200, 404], `${method} ${path}`).toContain(res.statusCode);
    }
  });
});
