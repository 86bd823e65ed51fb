// Game snapshots through the server: create, list, publish to Live, revert, copy, failures that change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStageConfig, loadStageCredentialHashes } from '../../src/config/stages.js';
import { createGameAs, type Headers, startWorld, type World } from './world.js';

let w: World;
let snaps: string;
let config: string;

const event = (shortCode: string, attrs: string[] = ['SCORE']) => ({
  name: shortCode,
  shortCode,
  description: `Event ${shortCode}`,
  '~attributes': attrs.map((a) => ({
    name: a,
    shortCode: a,
    dataType: 'int',
    defaultAggregationType: 'MAX',
  })),
});
const configA = {
  '~events': [event('winRace')],
  '~runningTotals': [
    {
      shortCode: 'bestRace',
      name: 'Best race',
      event: { '@ref': '/~events/winRace' },
      collectors: [{ attribute: { '@ref': '/~events/winRace/~attributes/SCORE' }, calculation: 'MAX' }],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'raceLB',
      name: 'Race leaders',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/bestRace' }, collector: 'SCORE', sort: 'DESC' }],
    },
  ],
  '~indexedTypes': [{ shortCode: 'Item', name: 'Item', fields: [{ name: 'level', type: 'number' }] }],
  '~credentials': [{ name: 'server' }],
};
const configB = { '~events': [event('loseRace', ['TIME'])], '~credentials': [{ name: 'server' }] };

async function putConfig(apiKey: string, doc: unknown, as: Headers = w.owner) {
  const res = await w.call('PUT', `/restv2/game/${apiKey}/config`, as, doc);
  expect(res.statusCode).toBe(200);
  return res.json();
}
async function fullConfig(apiKey: string) {
  const res = await w.call('GET', `/restv2/game/${apiKey}/config?full=true`, w.owner);
  expect(res.statusCode).toBe(200);
  return res.json();
}
async function snapshot(description: string, apiKey = w.apiKey): Promise<string> {
  const res = await w.call('POST', `/restv2/game/${apiKey}/admin/snapshots`, w.owner, { description });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}
const live = () => loadStageConfig(w.server.store.pool, w.apiKey, 'live');
const liveId = async () => (await w.call('GET', `${snaps}/liveSnapshotId`, w.owner)).json().liveSnapshotId;

beforeAll(async () => {
  w = await startWorld();
  snaps = `/restv2/game/${w.apiKey}/admin/snapshots`;
  config = `/restv2/game/${w.apiKey}/config`;
});
afterAll(async () => {
  await w.server.close();
});

describe('create, list, read, delete', () => {
  it('create → 201 {id, created, createdBy, description, published}; get, page and delete answer it', async () => {
    const res = await w.call('POST', snaps, w.owner, { description: 'first' });
    expect(res.statusCode).toBe(201);
    const snap = res.json();
    expect(snap).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      created: new Date(w.server.now.value).toISOString(),
      createdBy: w.ownerName,
      description: 'first',
      published: false,
    });
    expect((await w.call('GET', `${snaps}/${snap.id}`, w.owner)).json()).toEqual(snap);
    const full = (await w.call('GET', `${snaps}/${snap.id}?full=true`, w.owner)).json();
    expect(full.config).toEqual(await fullConfig(w.apiKey));
    expect(full.secrets).toBeUndefined();

    const deleted = await w.call('DELETE', `${snaps}/${snap.id}`, w.owner);
    expect(deleted.json()).toEqual({ message: 'SUCCESS' });
    const gone = await w.call('GET', `${snaps}/${snap.id}`, w.owner);
    expect([gone.statusCode, gone.json().code]).toEqual([404, 'SNAPSHOT_NOT_FOUND']);
    expect((await w.call('DELETE', `${snaps}/${snap.id}`, w.owner)).statusCode).toBe(404);
  });

  it('list → newest first, 20 by default, pageSize and /page/{n} from 1', async () => {
    const key = await createGameAs(w.server, w.owner, 'Many snapshots');
    const base = `/restv2/game/${key}/admin/snapshots`;
    for (let i = 0; i < 23; i++) {
      await snapshot(`s${i}`, key);
      w.server.now.advance(1000);
    }
    const first = (await w.call('GET', base, w.owner)).json();
    expect(first).toHaveLength(20);
    expect(first[0].description).toBe('s22');
    const page2 = (await w.call('GET', `${base}/page/2`, w.owner)).json();
    expect(page2.map((s: { description: string }) => s.description)).toEqual(['s2', 's1', 's0']);
    const small = (await w.call('GET', `${base}/page/3?pageSize=5`, w.owner)).json();
    expect(small.map((s: { description: string }) => s.description)).toEqual([
      's12',
      's11',
      's10',
      's9',
      's8',
    ]);
    expect((await w.call('GET', `${base}/page/9`, w.owner)).json()).toEqual([]);
  });

  it('bad page, pageSize, body or unknown game → 400 / 404', async () => {
    const page0 = await w.call('GET', `${snaps}/page/0`, w.owner);
    const size = await w.call('GET', `${snaps}?pageSize=1000`, w.owner);
    const body = await w.call('POST', snaps, w.owner, { description: 'x', extra: 1 });
    const long = await w.call('POST', snaps, w.owner, { description: 'x'.repeat(1001) });
    const game = await w.call('POST', '/restv2/game/nogame/admin/snapshots', w.owner, { description: 'x' });
    expect([page0.statusCode, size.statusCode, body.statusCode, long.statusCode]).toEqual([
      400, 400, 400, 400,
    ]);
    expect([game.statusCode, game.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });
});

describe('stages and publishing', () => {
  it('before the first publish → Live runs nothing, liveSnapshotId null', async () => {
    expect(await live()).toBeNull();
    expect(await liveId()).toBeNull();
  });

  it('publish, then change Preview → Live still answers the published configuration', async () => {
    await putConfig(w.apiKey, configA);
    const published = await fullConfig(w.apiKey);
    const id = await snapshot('A');
    const res = await w.call('POST', `${snaps}/${id}/publish`, w.owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, published: true });

    await putConfig(w.apiKey, configB);
    const preview = await loadStageConfig(w.server.store.pool, w.apiKey, 'preview');
    expect(preview?.config['~events'].map((e) => e.shortCode)).toEqual(['loseRace']);
    const liveNow = await live();
    expect(liveNow?.config).toEqual(published);
    expect(await liveId()).toBe(id);
  });

  it('publish another → Live version changes; unpublish it → Live falls back; unpublish the last → nothing', async () => {
    const first = await liveId();
    const before = await live();
    const idB = await snapshot('B');
    await w.call('POST', `${snaps}/${idB}/publish`, w.owner);
    const afterB = await live();
    expect(afterB?.version).not.toBe(before?.version);
    expect(afterB?.config['~events'].map((e) => e.shortCode)).toEqual(['loseRace']);

    const down = await w.call('POST', `${snaps}/${idB}/unpublish`, w.owner);
    expect(down.json()).toMatchObject({ id: idB, published: false });
    expect(await liveId()).toBe(first);
    expect((await live())?.config).toEqual(before?.config);

    const again = await w.call('POST', `${snaps}/${idB}/unpublish`, w.owner);
    expect([again.statusCode, again.json().code]).toEqual([409, 'SNAPSHOT_NOT_PUBLISHED']);
    const del = await w.call('DELETE', `${snaps}/${first}`, w.owner);
    expect([del.statusCode, del.json().code]).toEqual([409, 'SNAPSHOT_IS_LIVE']);

    await w.call('POST', `${snaps}/${first}/unpublish`, w.owner);
    expect(await liveId()).toBeNull();
    expect(await live()).toBeNull();
    await w.call('POST', `${snaps}/${first}/publish`, w.owner);
    expect(await liveId()).toBe(first);
  });

  it('Live keeps the published credentials; one added in Preview is not Live until published', async () => {
    const pool = w.server.store.pool;
    const created = await w.call('POST', `${config}/~credentials`, w.owner, { name: 'later' });
    expect(created.statusCode).toBe(201);
    expect(Object.keys(await loadStageCredentialHashes(pool, w.apiKey, 'preview'))).toContain('later');
    expect(Object.keys(await loadStageCredentialHashes(pool, w.apiKey, 'live'))).toEqual(['server']);
    await w.call('DELETE', `${config}/~credentials/later`, w.owner);
  });

  it('publish of an unknown snapshot → 404, nothing changes', async () => {
    const before = await live();
    const res = await w.call('POST', `${snaps}/ffffffffffffffffffffffff/publish`, w.owner);
    expect([res.statusCode, res.json().code]).toEqual([404, 'SNAPSHOT_NOT_FOUND']);
    expect(await live()).toEqual(before);
  });

  it('publish failing inside its transaction → 500, pointer, flags, Live and audit unchanged', async () => {
    const pool = w.server.store.pool;
    const before = await live();
    const beforeId = await liveId();
    const id = await snapshot('doomed');
    const audit = async () =>
      (await w.call('GET', `/restv2/game/${w.apiKey}/admin/audit?action=snapshot.publish`, w.owner)).json()
        .total;
    const audited = await audit();
    await pool.query(`CREATE FUNCTION fail_publish() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'storage failure'; END $$`);
    await pool.query(
      'CREATE TRIGGER fail_publish BEFORE UPDATE ON live_snapshots FOR EACH ROW EXECUTE FUNCTION fail_publish()',
    );
    try {
      const res = await w.call('POST', `${snaps}/${id}/publish`, w.owner);
      expect([res.statusCode, res.json().code]).toEqual([500, 'INTERNAL_ERROR']);
    } finally {
      await pool.query('DROP TRIGGER fail_publish ON live_snapshots');
      await pool.query('DROP FUNCTION fail_publish()');
    }
    expect(await live()).toEqual(before);
    expect(await liveId()).toBe(beforeId);
    expect((await w.call('GET', `${snaps}/${id}`, w.owner)).json().published).toBe(false);
    expect(await audit()).toBe(audited);
  });

  it('readers during publishes → each sees one whole published configuration, never a mix', async () => {
    const pool = w.server.store.pool;
    await putConfig(w.apiKey, configA);
    const a = await snapshot('atomic A');
    const configOfA = await fullConfig(w.apiKey);
    await putConfig(w.apiKey, configB);
    const b = await snapshot('atomic B');
    const configOfB = await fullConfig(w.apiKey);
    const publishes = Array.from({ length: 10 }, (_, i) =>
      w.call('POST', `${snaps}/${i % 2 ? a : b}/publish`, w.owner),
    );
    const reads = Array.from({ length: 30 }, () => loadStageConfig(pool, w.apiKey, 'live'));
    const [done, seen] = await Promise.all([Promise.all(publishes), Promise.all(reads)]);
    expect(done.every((r) => r.statusCode === 200)).toBe(true);
    // The first reads may still see what was Live before: configuration A as published earlier.
    for (const s of seen) expect([configOfA, configOfB]).toContainEqual(s?.config);
  });
});
