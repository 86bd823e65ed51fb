// Meta collections in snapshots: captured from Preview, copied to Live on publish, restored by revert and copy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Headers } from './world.js';
import { startWorld, type World } from './world.js';

let w: World;
let jwt: Headers;
let snaps: string;

const mongo = (stage: string, apiKey = w.apiKey) => `/${stage}/restv2/game/${apiKey}/mongo`;
async function jwtFor(apiKey: string): Promise<Headers> {
  const res = await w.call('GET', `/restv2/auth/game/${apiKey}/jwt`, w.owner);
  return { 'x-svc-jwt': res.json()['X-SVC-JWT'] };
}
async function find(stage: string, apiKey = w.apiKey, as = jwt): Promise<unknown[]> {
  const res = await w.call('POST', `${mongo(stage, apiKey)}/collection/meta.items/find`, as, {
    sort: { _id: 1 },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
async function nosql(path: string, body: unknown, as = jwt) {
  const res = await w.call('POST', path, as, body);
  expect(res.statusCode, res.body).toBe(200);
}
async function post(path: string, body?: unknown) {
  const res = await w.call('POST', path, w.owner, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}
const indexNames = async (stage: string, apiKey = w.apiKey, as = jwt) =>
  (await w.call('GET', `${mongo(stage, apiKey)}/collection/meta.items/indices`, as)).json();

const sword = { _id: 1, name: 'sword', level: 3 };
const shield = { _id: 2, name: 'shield', level: { $numberLong: '9007199254740993' } };

beforeAll(async () => {
  w = await startWorld();
  jwt = await jwtFor(w.apiKey);
  snaps = `/restv2/game/${w.apiKey}/admin/snapshots`;
  await nosql(`${mongo('preview')}/collection/items/meta`, {});
  await nosql(`${mongo('preview')}/collection/meta.items/insert`, [sword, shield]);
  await nosql(`${mongo('preview')}/collection/meta.items/index/byName?unique=true`, { name: 1 });
});
afterAll(async () => {
  await w.server.close();
});

describe('meta collections and stages', () => {
  it('publish → Live holds the published meta documents and indexes; later Preview changes stay out of Live', async () => {
    const preview = await find('preview');
    const { id } = await post(snaps, { description: 'with meta' });
    const full = await w.call('GET', `${snaps}/${id}?full=true`, w.owner);
    expect(full.json().meta).toEqual([{ collection: 'meta.items', documents: 2, indexes: ['byName'] }]);

    await post(`${snaps}/${id}/publish`);
    expect(await find('live')).toEqual(preview);
    expect(JSON.stringify(await indexNames('live'))).toContain('byName');
    const built = await w.server.store.pool.query(
      `SELECT i.indexname FROM nosql_indexes n JOIN pg_indexes i ON i.indexname = n.pg_name
       WHERE n.game_id = $1 AND n.stage = 'live' AND n.name = 'byName'`,
      [w.apiKey],
    );
    expect(built.rows).toHaveLength(1);

    await nosql(`${mongo('preview')}/collection/meta.items/insert`, [{ _id: 3, name: 'bow', level: 1 }]);
    await nosql(`${mongo('preview')}/collection/meta.items/remove`, { query: { _id: 1 } });
    expect(await find('live')).toEqual(preview);
  });

  it('revert → Preview meta documents back as snapshotted (long values exact)', async () => {
    const { id } = await post(snaps, { description: 'before wipe' });
    const kept = await find('preview');
    await nosql(`${mongo('preview')}/collection/meta.items/remove`, { query: { _id: { $in: [1, 2, 3] } } });
    expect(await find('preview')).toEqual([]);
    await post(`${snaps}/revert/to/${id}`);
    expect(await find('preview')).toEqual(kept);
    expect(JSON.stringify(kept)).toContain('9007199254740993');
  });

  it('copy to a new game → its Preview has the meta collection, documents and index', async () => {
    const { id } = await post(snaps, { description: 'for copy' });
    const { targetGameApiKey } = await post(`${snaps}/${id}/copy`);
    const theirs = await jwtFor(targetGameApiKey);
    expect(await find('preview', targetGameApiKey, theirs)).toEqual(await find('preview'));
    expect(JSON.stringify(await indexNames('preview', targetGameApiKey, theirs))).toContain('byName');
    const noMeta = await post(`${snaps}/${id}/copy?includeMeta=false`);
    const res = await w.call(
      'POST',
      `${mongo('preview', noMeta.targetGameApiKey)}/collection/meta.items/find`,
      await jwtFor(noMeta.targetGameApiKey),
      {},
    );
    expect(res.statusCode).toBe(404);
  });

  it('unpublish the only published snapshot → Live meta collections gone', async () => {
    const live = (await w.call('GET', `${snaps}/liveSnapshotId`, w.owner)).json().liveSnapshotId;
    await post(`${snaps}/${live}/unpublish`);
    const res = await w.call('POST', `${mongo('live')}/collection/meta.items/find`, jwt, {});
    expect(res.statusCode).toBe(404);
  });
});
