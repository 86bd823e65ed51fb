import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfigVersion } from '../../src/config/config-store.js';
import { type ConfigWorld, startConfigWorld } from './world.js';

let w: ConfigWorld;
beforeAll(async () => {
  w = await startConfigWorld();
});
afterAll(() => w.close());

describe('event validation', () => {
  const event = (patch: Record<string, unknown>) => ({
    name: 'E',
    shortCode: 'e1',
    description: 'd',
    ...patch,
  });
  const attribute = (patch: Record<string, unknown>) => ({
    name: 'A',
    shortCode: 'A1',
    dataType: 'int',
    defaultAggregationType: 'MAX',
    ...patch,
  });

  const cases: [string, unknown, string, string | RegExp][] = [
    ['a shortCode with a hyphen', event({ shortCode: 'win-race' }), 'VALIDATION_FAILED', 'body.shortCode'],
    [
      'a shortCode starting with a digit',
      event({ shortCode: '1race' }),
      'VALIDATION_FAILED',
      'body.shortCode',
    ],
    [
      'a shortCode of 65 characters',
      event({ shortCode: `a${'b'.repeat(64)}` }),
      'VALIDATION_FAILED',
      'body.shortCode',
    ],
    ['an empty shortCode', event({ shortCode: '' }), 'VALIDATION_FAILED', 'body.shortCode'],
    ['no name', { shortCode: 'e1', description: 'd' }, 'VALIDATION_FAILED', 'body.name'],
    ['no description', { name: 'E', shortCode: 'e1' }, 'VALIDATION_FAILED', 'body.description'],
    ['an unknown field', event({ colour: 'red' }), 'VALIDATION_FAILED', 'body.colour'],
    // JSON bodies are not coerced (docs/decisions.md, "Strict JSON bodies"): a wrong JSON type is refused.
    ['a name that is a number', event({ name: 5 }), 'VALIDATION_FAILED', 'body.name'],
    ['a description that is null', event({ description: null }), 'VALIDATION_FAILED', 'body.description'],
    ['a description that is true', event({ description: true }), 'VALIDATION_FAILED', 'body.description'],
    [
      '~attributes as one attribute, not an array',
      event({ '~attributes': 'A1' }),
      'VALIDATION_FAILED',
      'body.~attributes',
    ],
    [
      'dataType float',
      event({ '~attributes': [attribute({ dataType: 'float' })] }),
      'VALIDATION_FAILED',
      'body.~attributes.0.dataType',
    ],
    [
      'defaultAggregationType AVG',
      event({ '~attributes': [attribute({ defaultAggregationType: 'AVG' })] }),
      'VALIDATION_FAILED',
      'body.~attributes.0.defaultAggregationType',
    ],
    [
      'SUM on a string attribute',
      event({ '~attributes': [attribute({ dataType: 'string', defaultAggregationType: 'SUM' })] }),
      'CONFIG_INVALID',
      '~attributes.0.defaultAggregationType',
    ],
    [
      'MAX on a json attribute',
      event({ '~attributes': [attribute({ dataType: 'json' })] }),
      'CONFIG_INVALID',
      '~attributes.0.defaultAggregationType',
    ],
    [
      'MIN on a string attribute',
      event({ '~attributes': [attribute({ dataType: 'string', defaultAggregationType: 'MIN' })] }),
      'CONFIG_INVALID',
      '~attributes.0.defaultAggregationType',
    ],
    [
      'defaultValue 1.5 on an int attribute',
      event({ '~attributes': [attribute({ defaultValue: 1.5 })] }),
      'CONFIG_INVALID',
      '~attributes.0.defaultValue',
    ],
    [
      'defaultValue "7" on a number attribute',
      event({ '~attributes': [attribute({ dataType: 'number', defaultValue: '7' })] }),
      'CONFIG_INVALID',
      '~attributes.0.defaultValue',
    ],
    [
      'defaultValue 7 on a string attribute',
      event({
        '~attributes': [attribute({ dataType: 'string', defaultAggregationType: 'LAST', defaultValue: 7 })],
      }),
      'CONFIG_INVALID',
      '~attributes.0.defaultValue',
    ],
    [
      'two attributes with one shortCode',
      event({ '~attributes': [attribute({}), attribute({ name: 'Other' })] }),
      'CONFIG_INVALID',
      '~attributes',
    ],
    [
      'an attribute @id that does not match',
      event({ '~attributes': [attribute({ '@id': '/~events/other/~attributes/A1' })] }),
      'CONFIG_INVALID',
      '~attributes.0.@id',
    ],
  ];
  for (const [name, body, code, field] of cases) {
    it(`POST ~events with ${name} → 400 ${code} naming ${field}; nothing is stored`, async () => {
      const version = await getConfigVersion(w.server.store.pool, w.apiKey);
      const res = await w.call('POST', `${w.base}/~events`, w.owner, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe(code);
      const fields: string[] = res.json().details.map((d: { field: string }) => d.field);
      expect(
        fields.some((f) => (typeof field === 'string' ? f === field : field.test(f))),
        fields.join(),
      ).toBe(true);
      expect(await getConfigVersion(w.server.store.pool, w.apiKey)).toBe(version);
    });
  }

  it('defaultValue fitting its type (int, number, string, json) → stored and answered as sent', async () => {
    const res = await w.call(
      'POST',
      `${w.base}/~events`,
      w.owner,
      event({
        shortCode: 'defaults',
        '~attributes': [
          attribute({ shortCode: 'I', defaultValue: 3 }),
          attribute({ shortCode: 'N', dataType: 'number', defaultValue: 2.5 }),
          attribute({
            shortCode: 'S',
            dataType: 'string',
            defaultAggregationType: 'LAST',
            defaultValue: 'x',
          }),
          attribute({
            shortCode: 'J',
            dataType: 'json',
            defaultAggregationType: 'LAST',
            defaultValue: { a: [1] },
          }),
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()['~attributes'].map((a: { defaultValue: unknown }) => a.defaultValue)).toEqual([
      3,
      2.5,
      'x',
      { a: [1] },
    ]);
  });
});
