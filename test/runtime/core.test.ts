// Pure parts of the runtime: attribute checks, collector calculations, reset periods, the ranking byte order.
import { describe, expect, it } from 'vitest';
import { buildAttribute } from '../../src/config/config-build.js';
import { calculate, collect, passesFilter } from '../../src/runtime/collectors.js';
import { readEventAttributes } from '../../src/runtime/event-attributes.js';
import { entryOrder, valuesKey } from '../../src/runtime/ordering.js';
import { periodStart } from '../../src/runtime/periods.js';
import type { Collector, LeaderboardField } from '../../src/runtime/runtime-config.js';

const attrs = [
  buildAttribute('e', { name: 'S', shortCode: 'S', dataType: 'int', defaultAggregationType: 'MAX' }),
  buildAttribute('e', {
    name: 'N',
    shortCode: 'N',
    dataType: 'number',
    defaultAggregationType: 'SUM',
    defaultValue: 1.5,
  }),
  buildAttribute('e', { name: 'T', shortCode: 'T', dataType: 'string', defaultAggregationType: 'LAST' }),
  buildAttribute('e', {
    name: 'J',
    shortCode: 'J',
    dataType: 'json',
    defaultAggregationType: 'LAST',
    defaultValue: { a: 1 },
  }),
];

describe('event attributes', () => {
  it('all given and fitting → values; a missing attribute with a default → the default', () => {
    const r = readEventAttributes(attrs, { S: 3, T: 'x', extra: true });
    expect(r).toEqual({
      values: new Map<string, unknown>([
        ['S', 3],
        ['N', 1.5],
        ['T', 'x'],
        ['J', { a: 1 }],
      ]),
    });
  });

  it('missing without default → REQUIRED; null counts as missing; wrong type → INVALID, every field reported', () => {
    expect(readEventAttributes(attrs, { S: null })).toEqual({ errors: { S: 'REQUIRED', T: 'REQUIRED' } });
    expect(readEventAttributes(attrs, { S: 1.5, N: '2', T: 7 })).toEqual({
      errors: { S: 'INVALID', N: 'INVALID', T: 'INVALID' },
    });
    expect(readEventAttributes(attrs, { S: 1, T: 'ok', J: { $oid: 'x' } })).toEqual({
      errors: { J: 'INVALID' },
    });
    expect(readEventAttributes(attrs, { S: 1, T: 'nul\u0000' })).toEqual({ errors: { T: 'INVALID' } });
  });
});

describe('collector calculations', () => {
  it('each calculation from nothing, then from a value', () => {
    expect([calculate('MAX', undefined, 5), calculate('MAX', 7, 5), calculate('MAX', 3, 5)]).toEqual([
      5, 7, 5,
    ]);
    expect([calculate('MIN', undefined, 5), calculate('MIN', 7, 5), calculate('MIN', 3, 5)]).toEqual([
      5, 5, 3,
    ]);
    expect([calculate('SUM', undefined, 5), calculate('SUM', 7, 5)]).toEqual([5, 12]);
    expect([calculate('COUNT', undefined, 'x'), calculate('COUNT', 7, null)]).toEqual([1, 8]);
    expect([calculate('LAST', 'a', 'b'), calculate('LAST', 'a', null)]).toEqual(['b', 'a']);
  });

  it('filters: ordering operators compare numbers or strings only; EQ/NE compare whole values', () => {
    expect(passesFilter({ operator: 'GT', value: 10 }, 11)).toBe(true);
    expect(passesFilter({ operator: 'GT', value: 10 }, 10)).toBe(false);
    expect(passesFilter({ operator: 'GE', value: 10 }, 10)).toBe(true);
    expect(passesFilter({ operator: 'LT', value: 'm' }, 'a')).toBe(true);
    expect(passesFilter({ operator: 'LE', value: 10 }, '5')).toBe(false);
    expect(passesFilter({ operator: 'EQ', value: { a: [1] } }, { a: [1] })).toBe(true);
    expect(passesFilter({ operator: 'NE', value: 'x' }, 'x')).toBe(false);
    expect(passesFilter(undefined, 'anything')).toBe(true);
  });

  const collectors: Collector[] = [
    { attribute: 'S', calculation: 'MAX' },
    { attribute: 'L', calculation: 'SUPPLEMENTAL' },
    { attribute: 'S', calculation: 'COUNT', filter: { operator: 'GE', value: 10 } },
  ];
  const event = (S: number, L: number) =>
    new Map<string, unknown>([
      ['S', S],
      ['L', L],
    ]);

  it('SUPPLEMENTAL is replaced only when another value changes', () => {
    const first = collect(undefined, collectors, event(12, 1));
    expect(first).toEqual({ next: [12, 1, 1], rankingChanged: true, changed: true });
    // A lower score under the filter changes nothing: the level stays.
    expect(collect(first.next, collectors, event(5, 9))).toEqual({
      next: [12, 1, 1],
      rankingChanged: false,
      changed: false,
    });
    // A lower score over the filter counts: the count changed, so the level is replaced.
    expect(collect(first.next, collectors, event(11, 9)).next).toEqual([12, 9, 2]);
  });

  it('an event no collector takes creates no record; feeds() leaves other events\u2019 fields alone', () => {
    const filtered: Collector[] = [
      { attribute: 'S', calculation: 'SUM', filter: { operator: 'GT', value: 0 } },
    ];
    expect(collect(undefined, filtered, event(-1, 0))).toEqual({
      next: [undefined],
      rankingChanged: false,
      changed: false,
    });
    const r = collect(
      [3, 'keep'],
      [collectors[0] as Collector, { attribute: 'X', calculation: 'LAST' }],
      event(4, 0),
      (i) => i === 0,
    );
    expect(r.next).toEqual([4, 'keep']);
  });
});

describe('reset periods (UTC)', () => {
  const at = (iso: string) => periodStart('DAILY', Date.parse(iso));
  it('daily at 00:00, weekly on Monday 00:00, monthly on the 1st 00:00; never → 0', () => {
    expect(new Date(at('2026-11-22T23:59:59.999Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    // 2026-11-22 is a Sunday: its week began on Monday the 16th; Monday the 23rd starts the next one.
    expect(new Date(periodStart('WEEKLY', Date.parse('2026-11-22T12:00:00Z'))).toISOString()).toBe(
      '2026-11-16T00:00:00.000Z',
    );
    expect(new Date(periodStart('WEEKLY', Date.parse('2026-11-23T00:00:00Z'))).toISOString()).toBe(
      '2026-11-23T00:00:00.000Z',
    );
    expect(new Date(periodStart('MONTHLY', Date.parse('2026-12-31T23:59:59Z'))).toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
    expect(new Date(periodStart('MONTHLY', Date.parse('2027-01-01T00:00:00Z'))).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
    expect(periodStart('NEVER', Date.parse('2026-11-22T12:00:00Z'))).toBe(0);
  });
});

describe('ranking order', () => {
  const field = (sort: 'ASC' | 'DESC', ranks = true): LeaderboardField => ({
    attribute: 'S',
    calculation: ranks ? 'MAX' : 'SUPPLEMENTAL',
    runningTotal: 'R',
    event: 'e',
    sort,
    ranks,
  });
  const ord = (fields: LeaderboardField[], values: unknown[], when = 0, player = 'p') =>
    entryOrder(valuesKey(fields, values), when, player);
  const sorted = (fields: LeaderboardField[], rows: unknown[][]) =>
    rows
      .map((v) => ({ v, k: ord(fields, v) }))
      .sort((a, b) => Buffer.compare(a.k, b.k))
      .map((r) => r.v);

  it('DESC puts higher numbers first, ASC lower; an absent value comes last either way', () => {
    expect(sorted([field('DESC')], [[5], [-3], [undefined], [100], [0.5]])).toEqual([
      [100],
      [5],
      [0.5],
      [-3],
      [undefined],
    ]);
    expect(sorted([field('ASC')], [[5], [undefined], [-3], [100]])).toEqual([[-3], [5], [100], [undefined]]);
  });

  it('strings in both directions, a prefix included; fields compare in order; SUPPLEMENTAL never ranks', () => {
    expect(sorted([field('DESC')], [['ab'], ['abc'], ['b']])).toEqual([['b'], ['abc'], ['ab']]);
    expect(sorted([field('ASC')], [['abc'], ['ab'], ['b']])).toEqual([['ab'], ['abc'], ['b']]);
    const two = [field('DESC'), field('ASC')];
    expect(
      sorted(two, [
        [1, 9],
        [2, 5],
        [1, 3],
      ]),
    ).toEqual([
      [2, 5],
      [1, 3],
      [1, 9],
    ]);
    expect(valuesKey([field('DESC'), field('DESC', false)], [1, 7])).toEqual(valuesKey([field('DESC')], [1]));
  });

  it('equal values: the earlier `when` first, then the player id', () => {
    const f = [field('DESC')];
    expect(Buffer.compare(ord(f, [5], 1000, 'b'), ord(f, [5], 2000, 'a'))).toBe(-1);
    expect(Buffer.compare(ord(f, [5], 1000, 'a'), ord(f, [5], 1000, 'b'))).toBe(-1);
  });
});
