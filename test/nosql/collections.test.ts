// Collections over HTTP: groups and actions, configured collections, runtime and meta collections, drop, stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfiguredCollections } from '../../src/nosql/collections.js';
import { registerNosqlRoutes } from '../../src/nosql/routes.js';
import type { App } from '../../src/route/app.js';
import { createWorld, type World } from './world.js';

// A stand-in configuration, served under /fake (same routes, other source of configured collections).
const fake: ConfiguredCollections = async () => ({
  runningTotals: ['score-runningTotal'],
  leaderboards: ['score-leaderboard'],
});

let w: World;
beforeAll(async () => {
  w = await createWorld([
    async (app, ctx) => {
      await app.register(async (s) => registerNosqlRoutes(s as App, ctx, 'preview', { configured: fake }), {
        prefix: '/fake',
      });
    },
  ]);
});
afterAll(async () => {
  await w.close();
});

type Entry = { name: string; optionGroup: string; actions: string[] };
const EVERY = ['FIND', 'COUNT', 'INSERT', 'UPDATE', 'REMOVE', 'INDEX', 'AGGREGATE', 'DROP', 'STATS'];

describe('listing and groups', () => {
  it('a new game → the three System collections, every action but DROP', async () => {
    const list = await w.ok<Entry[]>('GET', 'live', 'collections');
    expect(list).toEqual(
      ['player', 'challengeInstance', 'externalAuthentication'].map((name) => ({
        name,
        optionGroup: 'System',
        actions: EVERY.filter((a) => a !== 'DROP'),
      })),
    );
  });

  it('configured leaderboard and running total → listed with their groups and actions', async () => {
    const list = await w.ok<Entry[]>('GET', 'fake', 'collections');
    expect(list.slice(3)).toEqual([
      {
        name: 'score-leaderboard',
        optionGroup: 'Leaderboards',
        actions: ['FIND', 'COUNT', 'INDEX', 'AGGREGATE', 'STATS'],
      },
      { name: 'score-runningTotal', optionGroup: 'Running Totals', actions: EVERY },
    ]);
  });

  it.each([
    ['insert', 'INSERT', { a: 1 }],
    ['update', 'UPDATE', { query: { a: 1 }, update: { $set: { b: 1 } } }],
    ['remove', 'REMOVE', { query: { a: 1 } }],
    ['save', 'INSERT', { a: 1 }],
  ])('%s on a Leaderboards collection → 403 NOSQL_ACTION_NOT_ALLOWED naming %s', async (op, action, body) => {
    const res = await w.call('POST', 'fake', `collection/score-leaderboard/${op}`, body);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      code: 'NOSQL_ACTION_NOT_ALLOWED',
      message: `${action} is not allowed on collection score-leaderboard`,
    });
  });

  it('drop of a Leaderboards or System collection → 403 naming DROP; reads of a leaderboard → 200', async () => {
    for (const name of ['score-leaderboard', 'player']) {
      const res = await w.call('DELETE', 'fake', `collection/${name}`);
      expect(res.status).toBe(403);
      expect((res.json as { message: string }).message).toBe(`DROP is not allowed on collection ${name}`);
    }
    expect(await w.ok('POST', 'fake', 'collection/score-leaderboard/find', {})).toEqual([]);
    expect(await w.ok('POST', 'fake', 'collection/score-leaderboard/count', {})).toEqual({ count: 0 });
  });

  it('running total: insert, then drop → emptied and still listed', async () => {
    await w.ok('POST', 'fake', 'collection/score-runningTotal/insert', [{ p: 1 }, { p: 2 }]);
    await w.ok('POST', 'fake', 'collection/score-runningTotal/index/p_1', { p: 1 });
    expect(await w.ok('DELETE', 'fake', 'collection/score-runningTotal')).toEqual({ message: 'OK' });
    expect(await w.ok('POST', 'fake', 'collection/score-runningTotal/count', {})).toEqual({ count: 0 });
    expect(await w.ok('GET', 'fake', 'collection/score-runningTotal/indices')).toHaveLength(1);
  });

  it('leaderboard configured through PUT /config → listed in Preview, unknown in Live until published', async () => {
    const config = {
      '~events': [
        {
          name: 'Score',
          shortCode: 'SCORE_EVT',
          description: 'posts a score',
          '~attributes': [
            { name: 'score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
          ],
        },
      ],
      '~runningTotals': [
        {
          shortCode: 'best',
          name: 'Best',
          event: { '@ref': '/~events/SCORE_EVT' },
          collectors: [{ attribute: { '@ref': '/~events/SCORE_EVT/~attributes/SCORE' }, calculation: 'MAX' }],
        },
      ],
      '~leaderboards': [
        {
          shortCode: 'best',
          name: 'Best',
          fields: [{ runningTotal: { '@ref': '/~runningTotals/best' }, collector: 'SCORE', sort: 'DESC' }],
        },
      ],
    };
    const put = await w.server.app.inject({
      method: 'PUT',
      url: `/restv2/game/${w.apiKey}/config`,
      headers: { authorization: w.server.adminBasic },
      payload: config,
    });
    expect(put.statusCode).toBe(200);
    const preview = await w.ok<Entry[]>('GET', 'preview', 'collections');
    expect(preview.map((e) => [e.name, e.optionGroup])).toContainEqual(['best-leaderboard', 'Leaderboards']);
    expect(preview.map((e) => [e.name, e.optionGroup])).toContainEqual([
      'best-runningTotal',
      'Running Totals',
    ]);
    const insert = await w.call('POST', 'preview', 'collection/best-leaderboard/insert', { a: 1 });
    expect(insert.status).toBe(403);
    expect((await w.call('POST', 'live', 'collection/best-leaderboard/find', {})).status).toBe(404);
  });
});

describe('runtime and meta collections', () => {
  it('runtime collection created as playerTagCounter/runtime → used, listed (Runtime) and dropped as script.playerTagCounter', async () => {
    expect(await w.ok('POST', 'preview', 'collection/playerTagCounter/runtime')).toEqual({ message: 'OK' });
    const S = 'collection/script.playerTagCounter';
    await w.ok('POST', 'preview', `${S}/insert`, { _id: 'red', count: 1 });
    await w.ok('POST', 'preview', `${S}/update`, { query: { _id: 'red' }, update: { $inc: { count: 2 } } });
    expect(await w.ok('POST', 'preview', `${S}/find`, {})).toEqual([{ _id: 'red', count: 3 }]);
    const listed = await w.ok<Entry[]>('GET', 'preview', 'collections');
    expect(listed).toContainEqual({
      name: 'script.playerTagCounter',
      optionGroup: 'Runtime',
      actions: EVERY,
    });
    expect((await w.call('POST', 'live', `${S}/find`, {})).status).toBe(404);
    expect(await w.ok('DELETE', 'preview', S)).toEqual({ message: 'OK' });
    expect((await w.call('POST', 'preview', `${S}/find`, {})).status).toBe(404);
    const after = await w.ok<Entry[]>('GET', 'preview', 'collections');
    expect(after.map((e) => e.name)).not.toContain('script.playerTagCounter');
    const { rows } = await w.server.store.pool.query(
      "SELECT 1 FROM nosql_documents WHERE game_id = $1 AND collection = 'script.playerTagCounter'",
      [w.apiKey],
    );
    expect(rows).toHaveLength(0);
  });

  it('runtime collection created twice → OK both times, listed once', async () => {
    await w.ok('POST', 'live', 'collection/twice/runtime');
    await w.ok('POST', 'live', 'collection/twice/runtime');
    const names = (await w.ok<Entry[]>('GET', 'live', 'collections')).map((e) => e.name);
    expect(names.filter((n) => n === 'script.twice')).toHaveLength(1);
  });

  it('meta collection in Preview → created and writable; in Live → 403 NOSQL_META_READ_ONLY_IN_LIVE', async () => {
    expect(await w.ok('POST', 'preview', 'collection/words/meta')).toEqual({ message: 'OK' });
    await w.ok('POST', 'preview', 'collection/meta.words/insert', { _id: 'adjectives', list: ['big'] });
    expect(await w.ok<Entry[]>('GET', 'preview', 'collections')).toContainEqual({
      name: 'meta.words',
      optionGroup: 'Meta',
      actions: EVERY,
    });
    const create = await w.call('POST', 'live', 'collection/words/meta');
    expect(create.status).toBe(403);
    expect(create.json).toMatchObject({ code: 'NOSQL_META_READ_ONLY_IN_LIVE' });
  });

  it('meta collection present in Live → reads allowed, writes and drop 403 naming the action', async () => {
    // Publishing copies meta collections to Live; here the row is made directly.
    await w.server.store.pool.query(
      "INSERT INTO nosql_collections (game_id, stage, collection, kind) VALUES ($1, 'live', 'meta.levels', 'meta')",
      [w.apiKey],
    );
    const listed = await w.ok<Entry[]>('GET', 'live', 'collections');
    expect(listed).toContainEqual({
      name: 'meta.levels',
      optionGroup: 'Meta',
      actions: ['FIND', 'COUNT', 'INDEX', 'AGGREGATE', 'STATS'],
    });
    expect(await w.ok('POST', 'live', 'collection/meta.levels/find', {})).toEqual([]);
    for (const [op, action] of [
      ['insert', 'INSERT'],
      ['remove', 'REMOVE'],
    ]) {
      const res = await w.call(
        'POST',
        'live',
        `collection/meta.levels/${op}`,
        op === 'insert' ? { a: 1 } : { query: { a: 1 } },
      );
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        code: 'NOSQL_META_READ_ONLY_IN_LIVE',
        message: `${action} is not allowed on meta collection meta.levels in the Live stage`,
      });
    }
    expect((await w.call('DELETE', 'live', 'collection/meta.levels')).status).toBe(403);
  });

  it.each([
    ['a quote', "bad'name"],
    ['a space', 'bad name'],
    ['a leading dot', '.hidden'],
    ['a $', 'a$b'],
  ])('runtime collection name with %s → 400 NOSQL_BAD_COLLECTION_NAME', async (_what, name) => {
    const res = await w.call('POST', 'preview', `collection/${encodeURIComponent(name)}/runtime`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_BAD_COLLECTION_NAME' });
  });
});

describe('stats', () => {
  it('collection stats → count, size, average and indexes; database stats → totals of the stage', async () => {
    await w.ok('POST', 'preview', 'collection/externalAuthentication/insert', [{ a: 1 }, { a: 'two' }]);
    await w.ok('POST', 'preview', 'collection/externalAuthentication/index/a_1', { a: 1 });
    const stats = await w.ok<Record<string, number>>(
      'GET',
      'preview',
      'collection/externalAuthentication/stats',
    );
    expect(stats).toMatchObject({ ns: `${w.apiKey}.externalAuthentication`, count: 2, nindexes: 2 });
    expect(stats.size).toBeGreaterThan(0);
    expect(stats.avgObjSize).toBe(Math.round(stats.size! / 2));
    expect(stats.totalIndexSize).toBeGreaterThan(0);
    const db = await w.ok<Record<string, unknown>>('GET', 'preview', 'stats');
    expect(db).toMatchObject({ db: w.apiKey, stage: 'preview' });
    expect(db.objects).toBeGreaterThanOrEqual(2);
    const live = await w.ok<Record<string, unknown>>('GET', 'live', 'stats');
    expect(live.objects).toBe(0);
  });
});
