// Unit tests of the expression language, continued: types, objects and dates, many pinned by MongoDB's jstests.
import { ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { codeOf, ev } from './expr.test-util.js';

describe('expression semantics (MongoDB), continued', () => {
  it('types and conversions', () => {
    expect(ev({ $type: { $numberLong: '1' } })).toBe('long');
    expect(ev({ $type: '$nope' })).toBe('missing');
    expect(ev({ $toInt: '-12' })).toBe(-12);
    expect(ev({ $toLong: 2.9 })).toBe(2n);
    expect(ev({ $toBool: 'false' })).toBe(true);
    // MongoDB's jstests/aggregation/expressions/convert.js.
    expect(ev({ $toBool: [[1, 2]] })).toBe(true);
    expect(ev({ $toBool: { $literal: { foo: 1 } } })).toBe(true);
    expect(ev({ $toDate: 1.9 })).toEqual(new Date(1));
    expect(ev({ $toString: 1.9 })).toBe('1.9');
    expect(ev({ $toLong: '$d' })).toBe(BigInt(Date.UTC(2021, 0, 31, 12)));
    expect(ev({ $toDate: { $toObjectId: '0123456789abcdef01234567' } })).toEqual(
      new Date('1970-08-09T22:25:43Z'),
    );
    expect(ev({ $convert: { input: 1.9, to: 'object', onError: 'ERROR' } })).toBe('ERROR');
    expect(ev({ $convert: { input: '$nope', to: null, onNull: 'NULL' } })).toBe('NULL');
    expect(codeOf(() => ev({ $toInt: '$d' }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(codeOf(() => ev({ $convert: { input: false, to: 'date' } }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(ev({ $toString: '$d' })).toBe('2021-01-31T12:00:00.000Z');
    expect(ev({ $toObjectId: '65a000000000000000000002' })).toEqual(
      ObjectId.createFromHexString('65a000000000000000000002'),
    );
    expect(ev({ $convert: { input: 'x', to: 'int', onError: 'bad' } })).toBe('bad');
    expect(ev({ $convert: { input: '$nope', to: 'int', onNull: 'none' } })).toBe('none');
    expect(ev({ $toDate: '2020-01-02T03:04:05.678+01:00' })).toEqual(
      new Date(Date.UTC(2020, 0, 2, 2, 4, 5, 678)),
    );
  });

  it('objects', () => {
    expect(ev({ $mergeObjects: [{ a: 1, b: 1 }, null, { b: 2 }] })).toEqual({ a: 1, b: 2 });
    expect(
      ev({
        $arrayToObject: [
          [
            ['k', 1],
            ['k', 2],
            ['j', 3],
          ],
        ],
      }),
    ).toEqual({ k: 2, j: 3 });
    expect(ev({ $setField: { field: 'a', input: '$$ROOT', value: '$$REMOVE' } })).not.toHaveProperty('a');
    expect(ev({ $getField: { field: 'a.b', input: { $literal: { 'a.b': 7 } } } })).toBe(7);
  });

  it("$dateFromParts as MongoDB's date_from_parts.js pins it", () => {
    const parts = (p: Record<string, unknown>) => ev({ $dateFromParts: p });
    expect(parts({ year: 2017, month: -1 })).toEqual(new Date('2016-11-01T00:00:00Z'));
    expect(parts({ year: 2017, day: 61 })).toEqual(new Date('2017-03-02T00:00:00Z'));
    expect(parts({ year: 2017, hour: 25 })).toEqual(new Date('2017-01-02T01:00:00Z'));
    expect(parts({ year: 2017, second: 71841012 })).toEqual(new Date('2019-04-12T11:50:12.000Z'));
    expect(parts({ year: 1970, millisecond: { $numberLong: '1502095918551' } })).toEqual(
      new Date('2017-08-07T08:51:58.551Z'),
    );
    expect(
      parts({
        year: 2017,
        month: 6,
        day: 23,
        hour: 16,
        minute: 42,
        second: 37,
        millisecond: 742,
        timezone: '+04:15',
      }),
    ).toEqual(new Date('2017-06-23T12:27:37.742Z'));
    expect(
      parts({
        year: 2017,
        month: 6,
        day: 23,
        hour: 10,
        minute: 27,
        second: 37,
        millisecond: 742,
        timezone: '-02',
      }),
    ).toEqual(new Date('2017-06-23T12:27:37.742Z'));
    expect(parts({ isoWeekYear: 2017, isoWeek: 6.0, isoDayOfWeek: 4 })).toEqual(
      new Date('2017-02-09T00:00:00Z'),
    );
    expect(parts({ year: 2017, month: '$nope' })).toBeNull();
    expect(parts({ year: 2017, timezone: '$nope' })).toBeNull();
    for (const bad of [
      { year: 10000 },
      { year: 0 },
      { year: 1970, month: 32768 },
      { year: 1970, day: -32769 },
      { year: 2017, isoWeek: 3 },
      { isoWeekYear: 2017, month: 12 },
      { year: '2017' },
      { year: 2017.3 },
      {},
      { year: 2017, timezone: false },
    ]) {
      expect(codeOf(() => parts(bad))).toMatch(/^400 QUERY_BAD_EXPRESSION Bad \$dateFromParts/);
    }
  });

  it("$dateFromString: the ISO cases of MongoDB's date_from_string.js; other forms without a format → 400", () => {
    const from = (dateString: string, more: Record<string, unknown> = {}) =>
      ev({ $dateFromString: { dateString, ...more } });
    expect(from('2017-07-04T11:56:02.81Z')).toEqual(new Date('2017-07-04T11:56:02.810Z'));
    expect(from('2017-07-06 11:36:54')).toEqual(new Date('2017-07-06T11:36:54Z'));
    expect(from('2017-07-19T18:52:35.199', { timezone: '-05:00' })).toEqual(
      new Date('2017-07-19T23:52:35.199Z'),
    );
    expect(from('2017-07-14T12:02:44.771 GMT+02:00')).toEqual(new Date('2017-07-14T10:02:44.771Z'));
    expect(from('2017-07-14T12:02:44.771+0330')).toEqual(new Date('2017-07-14T08:32:44.771Z'));
    expect(from('2017-07-14T12:02:44.771 UTC')).toEqual(new Date('2017-07-14T12:02:44.771Z'));
    expect(from('2017-07-04T11:56.02.813', { format: '%Y-%m-%dT%H:%M.%S.%L' })).toEqual(
      new Date('2017-07-04T11:56:02.813Z'),
    );
    expect(from('2017-07-04T11:56.02.8', { format: '%Y-%m-%dT%H:%M.%S.%L', timezone: '+01:00' })).toEqual(
      new Date('2017-07-04T10:56:02.800Z'),
    );
    expect(from('2017-07-04', { format: '%d/%m/%Y', onError: 'bad' })).toBe('bad');
    // MongoDB reads these (a dotted time, a zone abbreviation); this parser does not, so it refuses, even with onError.
    expect(codeOf(() => from('2017-07-04T11:56.02', { onError: 'bad' }))).toMatch(
      /^400 QUERY_BAD_EXPRESSION/,
    );
    expect(codeOf(() => from('2017-07-14T12:02:44.771 CEST'))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(codeOf(() => ev({ $convert: { input: 'July 4th', to: 'date', onError: 'bad' } }))).toMatch(
      /^400 /,
    );
  });

  it('dates: parts, weeks, formats, calendar arithmetic', () => {
    expect(ev({ $dayOfWeek: '$d' })).toBe(1);
    expect(ev({ $week: '$d' })).toBe(5);
    expect(ev({ $isoWeek: '$d' })).toBe(4);
    expect(ev({ $hour: { date: '$d', timezone: '+05:30' } })).toBe(17);
    expect(ev({ $dateToString: { date: '$d', format: '%Y/%m/%d %H:%M %j %z', timezone: '-02:00' } })).toBe(
      '2021/01/31 10:00 031 -0200',
    );
    expect(ev({ $dateAdd: { startDate: '$d', unit: 'month', amount: 1 } })).toEqual(
      new Date(Date.UTC(2021, 1, 28, 12)),
    );
    expect(
      ev({
        $dateDiff: {
          startDate: '$d',
          endDate: { $dateAdd: { startDate: '$d', unit: 'day', amount: 1 } },
          unit: 'month',
        },
      }),
    ).toBe(1n);
    expect(ev({ $dateTrunc: { date: '$d', unit: 'week', startOfWeek: 'monday' } })).toEqual(
      new Date(Date.UTC(2021, 0, 25)),
    );
    // MongoDB's jstests/aggregation/expressions/date_to_string.js.
    const fmt = (date: string, format?: string, timezone?: string) =>
      ev({
        $dateToString: {
          date: { $date: date },
          ...(format === undefined ? {} : { format }),
          ...(timezone ? { timezone } : {}),
        },
      });
    expect(fmt('2017-07-04T14:56:42.911Z', '%Y-%m-%d %H:%M:%S %z (%Z minutes)', '+08:45')).toBe(
      '2017-07-04 23:41:42 +0845 (525 minutes)',
    );
    expect(fmt('2017-07-04T14:56:42.911Z', '%Y-%m-%d %H:%M:%S %z (%Z minutes)', '-04:00')).toBe(
      '2017-07-04 10:56:42 -0400 (-240 minutes)',
    );
    expect(fmt('2017-01-01T15:08:51.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W1-01, ISO: 2016-W7-52',
    );
    expect(fmt('2017-07-04T15:09:12.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W3-27, ISO: 2017-W2-27',
    );
    expect(fmt('2017-12-04T15:09:14.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W2-49, ISO: 2017-W1-49',
    );
    expect(fmt('2017-07-04T15:09:12.911Z', '%b (%B) %d, %Y')).toBe('Jul (July) 04, 2017');
    expect(fmt('2017-01-04T15:08:51.911Z', undefined, '-05:00')).toBe('2017-01-04T10:08:51.911Z');
    expect(
      ev({ $dateToString: { date: { $date: '2017-01-04T15:08:51.911Z' }, format: '$nope' } }),
    ).toBeNull();
    for (const format of ['%', '%n', 5])
      expect(codeOf(() => fmt('2017-01-04T15:08:51.911Z', format as string))).toMatch(/^400 /);
    // MongoDB's jstests/aggregation/expressions/date_diff.js.
    const diff = (a: string, b: string, unit: string, more: Record<string, unknown> = {}) =>
      ev({ $dateDiff: { startDate: { $date: a }, endDate: { $date: b }, unit, ...more } });
    expect(diff('2020-11-01T18:23:36Z', '2020-11-02T00:00:00Z', 'hour')).toBe(6n);
    expect(diff('2021-01-24T18:23:36Z', '2021-01-25T02:23:36Z', 'week', { startOfWeek: 'MONDAY' })).toBe(1n);
    expect(diff('2021-01-24T18:23:36Z', '2021-01-25T02:23:36Z', 'week')).toBe(0n);
    expect(
      diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'week', {
        timezone: '-05:00',
        startOfWeek: 'sunday',
      }),
    ).toBe(-1n);
    expect(diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'hour', { startOfWeek: 1 })).toBe(-1n);
    expect(
      codeOf(() => diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'week', { startOfWeek: 'FRIDIE' })),
    ).toMatch(/^400 /);
    expect(
      ev({ $dateDiff: { startDate: '$nope', endDate: 1, unit: 'century', timezone: 'INVALID' } }),
    ).toBeNull();
    // MongoDB's jstests/aggregation/expressions/date_trunc.js (New York is -05:00 in January).
    const trunc = {
      date: { $date: '2000-01-30T18:00:00Z' },
      unit: 'week',
      binSize: 2,
      timezone: '-05:00',
      startOfWeek: 'mon',
    };
    expect(ev({ $dateTrunc: trunc })).toEqual(new Date('2000-01-17T05:00:00Z'));
    expect(ev({ $dateTrunc: { date: { $date: '2020-11-01T18:23:36Z' }, unit: 'hour', binSize: 2 } })).toEqual(
      new Date('2020-11-01T18:00:00Z'),
    );
    expect(ev({ $dateTrunc: { date: '$nope', unit: 'H', binSize: 'x', timezone: 1 } })).toBeNull();
    expect(ev({ $dateFromParts: { year: 2020, month: 14, day: 1 } })).toEqual(new Date(Date.UTC(2021, 1, 1)));
    expect(ev({ $dateFromParts: { isoWeekYear: 2021, isoWeek: 1, isoDayOfWeek: 1 } })).toEqual(
      new Date(Date.UTC(2021, 0, 4)),
    );
    expect(ev({ $dateToParts: { date: '$d', iso8601: true } })).toEqual({
      isoWeekYear: 2021,
      isoWeek: 4,
      isoDayOfWeek: 7,
      hour: 12,
      minute: 0,
      second: 0,
      millisecond: 0,
    });
    expect(ev({ $dateFromString: { dateString: '05/06/2021', format: '%d/%m/%Y' } })).toEqual(
      new Date(Date.UTC(2021, 5, 5)),
    );
  });
});
