import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfigVersion, listConfiguredCollections } from '../../src/config/config-store.js';
import { type ConfigWorld, startConfigWorld, WIN_RACE } from './world.js';

let w: ConfigWorld;
const ref = (to: string) => ({ '@ref': to });
const SCORE = '/~events/winRace/~attributes/SCORE';
const TRACK = '/~events/winRace/~attributes/TRACK';

beforeAll(async () => {
  w = await startConfigWorld();
  await w.ok('POST', `${w.base}/~events`, WIN_RACE);
  await w.ok('POST', `${w.base}/~events`, {
    name: 'Buy',
    shortCode: 'buy',
    description: '',
    '~attributes': [
      { name: 'Price', shortCode: 'PRICE', dataType: 'number', defaultAggregationType: 'SUM' },
      { name: 'Meta', shortCode: 'META', dataType: 'json', defaultAggregationType: 'LAST' },
    ],
  });
});
afterAll(() => w.close());

const bestScore = {
  shortCode: 'bestScore',
  name: 'Best score',
  event: ref('/~events/winRace'),
  groupBy: [ref(TRACK)],
  collectors: [
    { attribute: ref(SCORE), calculation: 'MAX' },
    { attribute: ref(TRACK), calculation: 'COUNT', filter: { operator: 'NE', value: 'test' } },
  ],
};

describe('running totals', () => {
  it('POST ~runningTotals → 201, the running total with @id, defaults filled in', async () => {
    const res = await w.call('POST', `${w.base}/~runningTotals`, w.owner, bestScore);
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe(
      JSON.stringify({
        '@id': '/~runningTotals/bestScore',
        shortCode: 'bestScore',
        name: 'Best score',
        description: '',
        event: { '@ref': '/~events/winRace' },
        groupBy: [{ '@ref': TRACK }],
        collectors: [
          { attribute: { '@ref': SCORE }, calculation: 'MAX' },
          { attribute: { '@ref': TRACK }, calculation: 'COUNT', filter: { operator: 'NE', value: 'test' } },
        ],
      }),
    );
  });

  it('the running total makes bestScore-runningTotal appear among the configured collections', async () => {
    const listed = await listConfiguredCollections(w.server.store.pool, w.apiKey);
    expect(listed.runningTotals).toEqual(['bestScore-runningTotal']);
  });

  it('GET list and GET one → the same running total', async () => {
    const one = await w.ok('GET', `${w.base}/~runningTotals/bestScore`);
    expect(await w.ok('GET', `${w.base}/~runningTotals`)).toEqual([one]);
    expect(one.collectors).toHaveLength(2);
  });

  const bad: [string, Record<string, unknown>, number, string, string | RegExp][] = [
    [
      'an event that does not exist',
      { event: ref('/~events/nope') },
      400,
      'CONFIG_REFERENCE_INVALID',
      'event.@ref',
    ],
    ['a malformed event reference', { event: ref('winRace') }, 400, 'CONFIG_REFERENCE_INVALID', 'event.@ref'],
    [
      'a collector on an attribute that does not exist',
      { collectors: [{ attribute: ref('/~events/winRace/~attributes/NOPE'), calculation: 'SUM' }] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'collectors.0.attribute.@ref',
    ],
    [
      'a collector on another event’s attribute',
      { collectors: [{ attribute: ref('/~events/buy/~attributes/PRICE'), calculation: 'SUM' }] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'collectors.0.attribute.@ref',
    ],
    [
      'a groupBy attribute that does not exist',
      { groupBy: [ref('/~events/winRace/~attributes/NOPE')] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'groupBy.0.@ref',
    ],
    [
      'SUM on a string attribute',
      { collectors: [{ attribute: ref(TRACK), calculation: 'SUM' }] },
      400,
      'CONFIG_INVALID',
      'collectors.0.calculation',
    ],
    [
      'a GT filter with a string value on an int attribute',
      {
        collectors: [{ attribute: ref(SCORE), calculation: 'MAX', filter: { operator: 'GT', value: 'ten' } }],
      },
      400,
      'CONFIG_INVALID',
      'collectors.0.filter.value',
    ],
    [
      'the same attribute collected twice',
      {
        collectors: [
          { attribute: ref(SCORE), calculation: 'MAX' },
          { attribute: ref(SCORE), calculation: 'SUM' },
        ],
      },
      400,
      'CONFIG_INVALID',
      'collectors',
    ],
    ['no collectors', { collectors: [] }, 400, 'VALIDATION_FAILED', 'body.collectors'],
    [
      'calculation SCRIPT (not a calculation)',
      { collectors: [{ attribute: ref(SCORE), calculation: 'SCRIPT' }] },
      400,
      'VALIDATION_FAILED',
      'body.collectors.0.calculation',
    ],
    [
      'filter operator LIKE',
      { collectors: [{ attribute: ref(SCORE), calculation: 'MAX', filter: { operator: 'LIKE', value: 1 } }] },
      400,
      'VALIDATION_FAILED',
      'body.collectors.0.filter.operator',
    ],
    ['a shortCode with a dot', { shortCode: 'a.b' }, 400, 'VALIDATION_FAILED', 'body.shortCode'],
    ['the shortCode of an existing running total', {}, 409, 'CONFIG_DUPLICATE', ''],
  ];
  for (const [name, patch, status, code, field] of bad) {
    it(`POST ~runningTotals with ${name} → ${status} ${code}; nothing changes`, async () => {
      const version = await getConfigVersion(w.server.store.pool, w.apiKey);
      const res = await w.call('POST', `${w.base}/~runningTotals`, w.owner, { ...bestScore, ...patch });
      expect({ status: res.statusCode, code: res.json().code }).toEqual({ status, code });
      if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await getConfigVersion(w.server.store.pool, w.apiKey)).toBe(version);
    });
  }

  it('PUT with only description → only description changes', async () => {
    const before = await w.ok('GET', `${w.base}/~runningTotals/bestScore`);
    const res = await w.call('PUT', `${w.base}/~runningTotals/bestScore`, w.owner, {
      description: 'per track',
    });
    expect(res.json()).toEqual({ ...before, description: 'per track' });
  });

  it('PATCH with a reference to nothing → 400 CONFIG_REFERENCE_INVALID; unchanged', async () => {
    const res = await w.call('PATCH', `${w.base}/~runningTotals/bestScore`, w.owner, {
      event: ref('/~events/x'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('CONFIG_REFERENCE_INVALID');
    expect((await w.ok('GET', `${w.base}/~runningTotals/bestScore`)).event).toEqual(ref('/~events/winRace'));
  });

  it('DELETE the event a running total is built on → 409 CONFIG_IN_USE naming the running total', async () => {
    const res = await w.call('DELETE', `${w.base}/~events/winRace`, w.owner);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'CONFIG_IN_USE',
      message: '/~events/winRace is referenced by /~runningTotals/bestScore',
    });
  });

  it('DELETE a collected attribute → 409 CONFIG_IN_USE naming the running total', async () => {
    const res = await w.call('DELETE', `${w.base}/~events/winRace/~attributes/SCORE`, w.owner);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(`${SCORE} is referenced by /~runningTotals/bestScore`);
  });

  it('PUT an event’s ~attributes without a collected attribute → 409 CONFIG_IN_USE; unchanged', async () => {
    const res = await w.call('PUT', `${w.base}/~events/winRace`, w.owner, {
      '~attributes': [WIN_RACE['~attributes'][1]],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CONFIG_IN_USE');
    expect((await w.ok('GET', `${w.base}/~events/winRace`))['~attributes']).toHaveLength(2);
  });

  it('PUT a collected attribute to string (aggregation LAST) → 400 CONFIG_INVALID naming the collector', async () => {
    const res = await w.call('PUT', `${w.base}/~events/winRace/~attributes/SCORE`, w.owner, {
      dataType: 'string',
      defaultAggregationType: 'LAST',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'CONFIG_INVALID',
      details: [{ field: '~runningTotals.0.collectors.0.calculation' }],
    });
  });
});

const topScores = {
  shortCode: 'topScores',
  name: 'Top scores',
  fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'DESC' }],
  partitions: [{ attribute: 'TRACK' }],
  resetFrequency: 'WEEKLY',
};

describe('leaderboards', () => {
  it('POST ~leaderboards → 201 with @id; its collection appears among the configured collections', async () => {
    const res = await w.call('POST', `${w.base}/~leaderboards`, w.owner, topScores);
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe(
      JSON.stringify({
        '@id': '/~leaderboards/topScores',
        shortCode: 'topScores',
        name: 'Top scores',
        description: '',
        fields: [{ runningTotal: { '@ref': '/~runningTotals/bestScore' }, collector: 'SCORE', sort: 'DESC' }],
        partitions: [{ attribute: 'TRACK' }],
        resetFrequency: 'WEEKLY',
      }),
    );
    const listed = await listConfiguredCollections(w.server.store.pool, w.apiKey);
    expect(listed).toEqual({
      runningTotals: ['bestScore-runningTotal'],
      leaderboards: ['topScores-leaderboard'],
    });
  });

  it('POST without partitions and resetFrequency → partitions [] and resetFrequency NEVER', async () => {
    const res = await w.call('POST', `${w.base}/~leaderboards`, w.owner, {
      shortCode: 'allTime',
      name: 'All time',
      description: 'ever',
      fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'ASC' }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ description: 'ever', partitions: [], resetFrequency: 'NEVER' });
  });

  const bad: [string, Record<string, unknown>, number, string, string][] = [
    [
      'a running total that does not exist',
      { fields: [{ runningTotal: ref('/~runningTotals/nope'), collector: 'SCORE', sort: 'DESC' }] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'fields.0.runningTotal.@ref',
    ],
    [
      'a collector the running total does not have',
      { fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'LAP', sort: 'DESC' }] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'fields.0.collector',
    ],
    [
      'a partition the running total does not group by',
      { partitions: [{ attribute: 'SCORE' }] },
      400,
      'CONFIG_REFERENCE_INVALID',
      'partitions.0.attribute',
    ],
    [
      'sort UP',
      { fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'UP' }] },
      400,
      'VALIDATION_FAILED',
      'body.fields.0.sort',
    ],
    ['resetFrequency HOURLY', { resetFrequency: 'HOURLY' }, 400, 'VALIDATION_FAILED', 'body.resetFrequency'],
    ['no fields', { fields: [] }, 400, 'VALIDATION_FAILED', 'body.fields'],
  ];
  for (const [name, patch, status, code, field] of bad) {
    it(`POST ~leaderboards with ${name} → ${status} ${code} naming ${field}`, async () => {
      const res = await w.call('POST', `${w.base}/~leaderboards`, w.owner, {
        ...topScores,
        shortCode: 'lb2',
        ...patch,
      });
      expect({ status: res.statusCode, code: res.json().code }).toEqual({ status, code });
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    });
  }

  it('POST a leaderboard shortCode that exists → 409 CONFIG_DUPLICATE', async () => {
    const res = await w.call('POST', `${w.base}/~leaderboards`, w.owner, topScores);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CONFIG_DUPLICATE');
  });

  it('DELETE a running total two leaderboards rank by → 409 CONFIG_IN_USE naming both', async () => {
    const res = await w.call('DELETE', `${w.base}/~runningTotals/bestScore`, w.owner);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(
      '/~runningTotals/bestScore is referenced by /~leaderboards/topScores, /~leaderboards/allTime',
    );
  });

  it('PUT a running total’s collectors without the ranked one → 400 CONFIG_REFERENCE_INVALID naming the leaderboard field', async () => {
    const res = await w.call('PUT', `${w.base}/~runningTotals/bestScore`, w.owner, {
      collectors: [{ attribute: ref(TRACK), calculation: 'COUNT' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('CONFIG_REFERENCE_INVALID');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(
      '~leaderboards.0.fields.0.collector',
    );
  });

  it('PATCH resetFrequency → only it changes; DELETE leaderboards, then the running total, then the event → SUCCESS each', async () => {
    const before = await w.ok('GET', `${w.base}/~leaderboards/topScores`);
    const res = await w.call('PATCH', `${w.base}/~leaderboards/topScores`, w.owner, {
      resetFrequency: 'DAILY',
    });
    expect(res.json()).toEqual({ ...before, resetFrequency: 'DAILY' });
    for (const path of [
      '~leaderboards/topScores',
      '~leaderboards/allTime',
      '~runningTotals/bestScore',
      '~events/winRace',
    ]) {
      expect(await w.ok('DELETE', `${w.base}/${path}`)).toEqual({ message: 'SUCCESS' });
    }
    expect(await listConfiguredCollections(w.server.store.pool, w.apiKey)).toEqual({
      runningTotals: [],
      leaderboards: [],
    });
  });

  it('GET an unknown leaderboard / running total → 404 LEADERBOARD_NOT_FOUND / RUNNING_TOTAL_NOT_FOUND', async () => {
    const lb = await w.call('GET', `${w.base}/~leaderboards/nope`, w.owner);
    const rt = await w.call('DELETE', `${w.base}/~runningTotals/nope`, w.owner);
    expect([lb.statusCode, lb.json().code, rt.statusCode, rt.json().code]).toEqual([
      404,
      'LEADERBOARD_NOT_FOUND',
      404,
      'RUNNING_TOTAL_NOT_FOUND',
    ]);
  });
});

describe('indexed types (data-service types)', () => {
  const inventory = {
    shortCode: 'inventory',
    name: 'Inventory',
    fields: [
      { name: 'owner', type: 'string' },
      { name: 'level', type: 'number' },
    ],
  };

  it('POST ~indexedTypes → 201 {@id, shortCode, name, fields}; GET answers it', async () => {
    const res = await w.call('POST', `${w.base}/~indexedTypes`, w.owner, inventory);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ '@id': '/~indexedTypes/inventory', ...inventory });
    expect(await w.ok('GET', `${w.base}/~indexedTypes`)).toEqual([res.json()]);
  });

  it('a field type boolean → 400 VALIDATION_FAILED; one field name twice → 400 CONFIG_INVALID', async () => {
    const boolean = await w.call('POST', `${w.base}/~indexedTypes`, w.owner, {
      ...inventory,
      shortCode: 't2',
      fields: [{ name: 'x', type: 'boolean' }],
    });
    expect(boolean.json().code).toBe('VALIDATION_FAILED');
    const twice = await w.call('POST', `${w.base}/~indexedTypes`, w.owner, {
      ...inventory,
      shortCode: 't2',
      fields: [
        { name: 'x', type: 'string' },
        { name: 'x', type: 'number' },
      ],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toMatchObject({ code: 'CONFIG_INVALID', details: [{ field: 'fields' }] });
  });

  it('PUT fields → replaced; DELETE → SUCCESS then 404 INDEXED_TYPE_NOT_FOUND', async () => {
    const res = await w.call('PUT', `${w.base}/~indexedTypes/inventory`, w.owner, {
      fields: [{ name: 'owner', type: 'string' }],
    });
    expect(res.json().fields).toEqual([{ name: 'owner', type: 'string' }]);
    expect(await w.ok('DELETE', `${w.base}/~indexedTypes/inventory`)).toEqual({ message: 'SUCCESS' });
    const gone = await w.call('GET', `${w.base}/~indexedTypes/inventory`, w.owner);
    expect([gone.statusCode, gone.json().code]).toEqual([404, 'INDEXED_TYPE_NOT_FOUND']);
  });
});
