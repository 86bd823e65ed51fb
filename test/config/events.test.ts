import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfigVersion } from '../../src/config/config-store.js';
import { type ConfigWorld, startConfigWorld, WIN_RACE } from './world.js';

let w: ConfigWorld;
beforeAll(async () => {
  w = await startConfigWorld();
});
afterAll(() => w.close());

describe('spec 4.2 examples, literally', () => {
  it('POST ~events with name, shortCode, description and ~attributes → 201, the created event with @id and attributes', async () => {
    const res = await w.server.app.inject({
      method: 'POST',
      url: `${w.base}/~events`,
      headers: { ...w.owner, 'content-type': 'application/json' },
      payload: JSON.stringify(WIN_RACE),
    });
    expect(res.statusCode).toBe(201);
    // Field for field and in this order.
    expect(res.body).toBe(
      JSON.stringify({
        '@id': '/~events/winRace',
        name: 'Win Race',
        shortCode: 'winRace',
        description: 'A player won a race',
        '~attributes': [
          {
            '@id': '/~events/winRace/~attributes/SCORE',
            name: 'Score',
            shortCode: 'SCORE',
            dataType: 'int',
            defaultAggregationType: 'MAX',
            defaultValue: null,
          },
          {
            '@id': '/~events/winRace/~attributes/TRACK',
            name: 'Track',
            shortCode: 'TRACK',
            dataType: 'string',
            defaultAggregationType: 'GROUPED',
            defaultValue: null,
          },
        ],
      }),
    );
  });

  it('PUT ~events/{eventShortCode} with only description → the full event; name, shortCode, attributes unchanged', async () => {
    const before = await w.ok('GET', `${w.base}/~events/winRace`);
    const res = await w.call('PUT', `${w.base}/~events/winRace`, w.owner, {
      description: 'Crossed the line first',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...before, description: 'Crossed the line first' });
    expect(await w.ok('GET', `${w.base}/~events/winRace`)).toEqual(res.json());
  });

  it('POST .../~attributes with dataType, defaultAggregationType, name, shortCode → 201 with @id and defaultValue null', async () => {
    const res = await w.server.app.inject({
      method: 'POST',
      url: `${w.base}/~events/winRace/~attributes`,
      headers: { ...w.owner, 'content-type': 'application/json;charset=UTF-8' },
      payload: JSON.stringify({
        dataType: 'string',
        defaultAggregationType: 'SUPPLEMENTAL',
        name: 'Car',
        shortCode: 'CAR',
      }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe(
      JSON.stringify({
        '@id': '/~events/winRace/~attributes/CAR',
        name: 'Car',
        shortCode: 'CAR',
        dataType: 'string',
        defaultAggregationType: 'SUPPLEMENTAL',
        defaultValue: null,
      }),
    );
  });

  it('POST .../~attributes with the SCRIPT aggregation (a value seen in the spec) → 201', async () => {
    const res = await w.call('POST', `${w.base}/~events/winRace/~attributes`, w.owner, {
      dataType: 'int',
      defaultAggregationType: 'SCRIPT',
      name: 'Lap',
      shortCode: 'LAP',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().defaultAggregationType).toBe('SCRIPT');
  });

  it('DELETE .../~attributes/{attributeShortCode} → {"message": "SUCCESS"}; the attribute is gone', async () => {
    const res = await w.call('DELETE', `${w.base}/~events/winRace/~attributes/CAR`, w.owner);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"message":"SUCCESS"}');
    const gone = await w.call('GET', `${w.base}/~events/winRace/~attributes/CAR`, w.owner);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('ATTRIBUTE_NOT_FOUND');
  });
});

describe('events', () => {
  it('POST without ~attributes → 201 with an empty ~attributes list', async () => {
    const res = await w.call('POST', `${w.base}/~events`, w.owner, {
      name: 'Login',
      shortCode: 'login',
      description: '',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      '@id': '/~events/login',
      name: 'Login',
      shortCode: 'login',
      description: '',
      '~attributes': [],
    });
  });

  it('GET ~events → every event, in creation order, with attributes', async () => {
    const list = await w.ok('GET', `${w.base}/~events`);
    expect(list.map((e: { shortCode: string }) => e.shortCode)).toEqual(['winRace', 'login']);
    expect(list[0]['~attributes'].map((a: { shortCode: string }) => a.shortCode)).toEqual([
      'SCORE',
      'TRACK',
      'LAP',
    ]);
  });

  it('PATCH with only name → only name changes', async () => {
    const res = await w.call('PATCH', `${w.base}/~events/login`, w.owner, { name: 'Log in' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Log in',
      shortCode: 'login',
      description: '',
      '~attributes': [],
    });
  });

  it('PUT with ~attributes → the list is replaced by the one sent', async () => {
    const res = await w.call('PUT', `${w.base}/~events/login`, w.owner, {
      '~attributes': [
        { name: 'Device', shortCode: 'DEVICE', dataType: 'string', defaultAggregationType: 'LAST' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()['~attributes']).toEqual([
      {
        '@id': '/~events/login/~attributes/DEVICE',
        name: 'Device',
        shortCode: 'DEVICE',
        dataType: 'string',
        defaultAggregationType: 'LAST',
        defaultValue: null,
      },
    ]);
  });

  it('PUT sending back a GET answer unchanged (with @id) → 200, nothing changes', async () => {
    const current = await w.ok('GET', `${w.base}/~events/login`);
    const res = await w.call('PUT', `${w.base}/~events/login`, w.owner, current);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(current);
  });

  it('PUT changing shortCode → 400 CONFIG_INVALID on shortCode; nothing changes', async () => {
    const res = await w.call('PUT', `${w.base}/~events/login`, w.owner, { shortCode: 'logIn' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONFIG_INVALID', details: [{ field: 'shortCode' }] });
    expect((await w.call('GET', `${w.base}/~events/logIn`, w.owner)).statusCode).toBe(404);
  });

  it('PUT with an @id naming another event → 400 CONFIG_INVALID on @id', async () => {
    const res = await w.call('PUT', `${w.base}/~events/login`, w.owner, { '@id': '/~events/winRace' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONFIG_INVALID', details: [{ field: '@id' }] });
  });

  it('POST a shortCode that exists → 409 CONFIG_DUPLICATE', async () => {
    const res = await w.call('POST', `${w.base}/~events`, w.owner, WIN_RACE);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'CONFIG_DUPLICATE',
      message: '/~events/winRace exists already',
    });
  });

  it('GET, PUT, DELETE an unknown event → 404 EVENT_NOT_FOUND', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await w.call(method, `${w.base}/~events/nope`, w.owner, method === 'PUT' ? {} : undefined);
      expect({ method, status: res.statusCode, code: res.json().code }).toEqual({
        method,
        status: 404,
        code: 'EVENT_NOT_FOUND',
      });
    }
  });

  it('DELETE an event nothing references → SUCCESS; it is gone', async () => {
    await w.ok('POST', `${w.base}/~events`, { name: 'Tmp', shortCode: 'tmp', description: 'x' });
    expect(await w.ok('DELETE', `${w.base}/~events/tmp`)).toEqual({ message: 'SUCCESS' });
    expect((await w.call('GET', `${w.base}/~events/tmp`, w.owner)).statusCode).toBe(404);
  });
});

describe('attributes', () => {
  const url = () => `${w.base}/~events/winRace/~attributes`;

  it('GET .../~attributes → the list; GET one → that attribute', async () => {
    const list = await w.ok('GET', url());
    expect(list.map((a: { shortCode: string }) => a.shortCode)).toEqual(['SCORE', 'TRACK', 'LAP']);
    expect(await w.ok('GET', `${url()}/SCORE`)).toEqual(list[0]);
  });

  it('POST an attribute shortCode the event has → 409 CONFIG_DUPLICATE', async () => {
    const res = await w.call('POST', url(), w.owner, {
      name: 'Again',
      shortCode: 'SCORE',
      dataType: 'int',
      defaultAggregationType: 'SUM',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'CONFIG_DUPLICATE',
      message: '/~events/winRace/~attributes/SCORE exists already',
    });
  });

  it('POST to an unknown event → 404 EVENT_NOT_FOUND', async () => {
    const res = await w.call('POST', `${w.base}/~events/nope/~attributes`, w.owner, {
      name: 'A',
      shortCode: 'A',
      dataType: 'int',
      defaultAggregationType: 'SUM',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('EVENT_NOT_FOUND');
  });

  it('PUT defaultValue only → only defaultValue changes; PATCH it back to null → null', async () => {
    const before = await w.ok('GET', `${url()}/LAP`);
    const set = await w.call('PUT', `${url()}/LAP`, w.owner, { defaultValue: 4 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ ...before, defaultValue: 4 });
    const unset = await w.call('PATCH', `${url()}/LAP`, w.owner, { defaultValue: null });
    expect(unset.json()).toEqual(before);
  });

  it('PUT dataType string on an attribute aggregated by MAX → 400 CONFIG_INVALID; unchanged', async () => {
    const res = await w.call('PUT', `${url()}/SCORE`, w.owner, { dataType: 'string' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'CONFIG_INVALID',
      details: [{ field: 'defaultAggregationType' }],
    });
    expect((await w.ok('GET', `${url()}/SCORE`)).dataType).toBe('int');
  });

  it('PUT dataType and aggregation together → both change', async () => {
    const res = await w.call('PUT', `${url()}/LAP`, w.owner, {
      dataType: 'json',
      defaultAggregationType: 'LAST',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ dataType: 'json', defaultAggregationType: 'LAST' });
  });

  it('PUT a new shortCode → 400 CONFIG_INVALID; PUT with an unknown field → 400 VALIDATION_FAILED', async () => {
    const renamed = await w.call('PUT', `${url()}/LAP`, w.owner, { shortCode: 'LAPS' });
    expect(renamed.json()).toMatchObject({ code: 'CONFIG_INVALID', details: [{ field: 'shortCode' }] });
    const unknown = await w.call('PUT', `${url()}/LAP`, w.owner, { colour: 'red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('VALIDATION_FAILED');
  });

  it('GET, PUT, DELETE an unknown attribute → 404 ATTRIBUTE_NOT_FOUND', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await w.call(method, `${url()}/NOPE`, w.owner, method === 'PUT' ? {} : undefined);
      expect({ method, status: res.statusCode, code: res.json().code }).toEqual({
        method,
        status: 404,
        code: 'ATTRIBUTE_NOT_FOUND',
      });
    }
  });

  it('a path shortCode that cannot be one (a dot) → 400 VALIDATION_FAILED', async () => {
    const res = await w.call('GET', `${url()}/A.B`, w.owner);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
  });
});

describe('configuration version', () => {
  it('every change raises it by one; reads and refused changes leave it', async () => {
    const pool = w.server.store.pool;
    const v0 = await getConfigVersion(pool, w.apiKey);
    await w.ok('POST', `${w.base}/~events`, { name: 'V', shortCode: 'versioned', description: '' });
    expect(await getConfigVersion(pool, w.apiKey)).toBe(v0 + 1);
    await w.ok('PUT', `${w.base}/~events/versioned`, { description: 'x' });
    await w.ok('GET', `${w.base}/~events/versioned`);
    expect(await getConfigVersion(pool, w.apiKey)).toBe(v0 + 2);
    await w.call('PUT', `${w.base}/~events/versioned`, w.owner, { shortCode: 'renamed' });
    await w.ok('DELETE', `${w.base}/~events/versioned`);
    expect(await getConfigVersion(pool, w.apiKey)).toBe(v0 + 3);
  });
});
