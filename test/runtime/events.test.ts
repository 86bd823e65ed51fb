// LogEventRequest through the server: attribute checks, and every running-total calculation, grouped or not,
// with and without filters, read back through the nosql find API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type RuntimeWorld, startRuntimeWorld } from './world.js';

const attr = (shortCode: string) => ({ '@ref': `/~events/play/~attributes/${shortCode}` });
const total = (shortCode: string, collectors: unknown[], groupBy: string[] = []) => ({
  shortCode,
  name: shortCode,
  event: { '@ref': '/~events/play' },
  groupBy: groupBy.map(attr),
  collectors,
});

const CONFIG = {
  '~events': [
    {
      name: 'Play',
      shortCode: 'play',
      description: 'A game played',
      '~attributes': [
        { name: 'Points', shortCode: 'PTS', dataType: 'int', defaultAggregationType: 'MAX' },
        { name: 'Time', shortCode: 'TIME', dataType: 'number', defaultAggregationType: 'MIN' },
        {
          name: 'Map',
          shortCode: 'MAP',
          dataType: 'string',
          defaultAggregationType: 'GROUPED',
          defaultValue: 'none',
        },
        {
          name: 'Note',
          shortCode: 'NOTE',
          dataType: 'string',
          defaultAggregationType: 'LAST',
          defaultValue: 'n/a',
        },
        {
          name: 'Level',
          shortCode: 'LVL',
          dataType: 'int',
          defaultAggregationType: 'SUPPLEMENTAL',
          defaultValue: 1,
        },
        {
          name: 'Extra',
          shortCode: 'EXTRA',
          dataType: 'json',
          defaultAggregationType: 'LAST',
          defaultValue: {},
        },
      ],
    },
  ],
  '~runningTotals': [
    total('BEST', [
      { attribute: attr('PTS'), calculation: 'MAX' },
      { attribute: attr('TIME'), calculation: 'MIN' },
      { attribute: attr('NOTE'), calculation: 'LAST' },
      { attribute: attr('EXTRA'), calculation: 'LAST' },
    ]),
    total('SUPP', [
      { attribute: attr('PTS'), calculation: 'MAX' },
      { attribute: attr('LVL'), calculation: 'SUPPLEMENTAL' },
    ]),
    total('TOTAL', [
      { attribute: attr('PTS'), calculation: 'SUM' },
      { attribute: attr('MAP'), calculation: 'COUNT' },
    ]),
    total('POS', [
      { attribute: attr('PTS'), calculation: 'SUM', filter: { operator: 'GT', value: 0 } },
      { attribute: attr('NOTE'), calculation: 'COUNT', filter: { operator: 'EQ', value: 'win' } },
      { attribute: attr('TIME'), calculation: 'MAX', filter: { operator: 'LT', value: 100 } },
    ]),
    total(
      'PERMAP',
      [
        { attribute: attr('PTS'), calculation: 'MAX' },
        { attribute: attr('LVL'), calculation: 'SUPPLEMENTAL' },
      ],
      ['MAP'],
    ),
    total(
      'PERMAPF',
      [{ attribute: attr('PTS'), calculation: 'MIN', filter: { operator: 'GE', value: 10 } }],
      ['MAP'],
    ),
  ],
  '~leaderboards': [],
};

/** Running-total records of a player, without the fields that vary (_id, when). */
async function records(w: RuntimeWorld, rt: string, userId: string) {
  const docs = await w.find(`${rt}-runningTotal`, { query: { userId }, sort: { MAP: 1 } });
  return docs.map(({ _id, when, ...rest }: Record<string, unknown>) => {
    expect(when).toHaveProperty('$date');
    return rest;
  });
}

describe(`LogEventRequest and running totals (${storeKind})`, () => {
  let w: RuntimeWorld;
  let a: string;
  let b: string;

  beforeAll(async () => {
    w = await startRuntimeWorld(CONFIG);
    a = await w.player('ann');
    b = await w.player('bob');
    const post = (playerId: string, fields: Record<string, unknown>) =>
      w.ask('LogEventRequest', { eventKey: 'play', playerId, ...fields });
    await post(a, { PTS: 10, TIME: 50.5, MAP: 'x', NOTE: 'win', LVL: 2, EXTRA: { k: [1] } });
    await post(a, { PTS: -5, TIME: 40, MAP: 'y', NOTE: 'lose', LVL: 3 });
    await post(a, { PTS: 30, TIME: 120, LVL: 4 });
    await post(a, { PTS: 20, TIME: 60, MAP: 'x', NOTE: 'win', LVL: 5 });
    await post(b, { PTS: 7, TIME: 1, MAP: 'x', NOTE: 'win', LVL: 9 });
  });
  afterAll(async () => w.close());

  it('MAX, MIN and LAST without grouping; missing attributes take their defaults → one record per player', async () => {
    expect(await records(w, 'BEST', a)).toEqual([{ userId: a, PTS: 30, TIME: 40, NOTE: 'win', EXTRA: {} }]);
    expect(await records(w, 'BEST', b)).toEqual([{ userId: b, PTS: 7, TIME: 1, NOTE: 'win', EXTRA: {} }]);
  });

  it('SUPPLEMENTAL is replaced only when the ranking value changes', async () => {
    // Levels 2, 3, 4, 5 were posted; the best score changed with levels 2 and 4 only.
    expect(await records(w, 'SUPP', a)).toEqual([{ userId: a, PTS: 30, LVL: 4 }]);
  });

  it('SUM and COUNT → the total of every value and the number of events', async () => {
    expect(await records(w, 'TOTAL', a)).toEqual([{ userId: a, PTS: 55, MAP: 4 }]);
  });

  it('filters: SUM over positive values, COUNT of NOTE = win, MAX of times under 100', async () => {
    expect(await records(w, 'POS', a)).toEqual([{ userId: a, PTS: 60, NOTE: 2, TIME: 60 }]);
  });

  it('grouped by MAP → one record per player and map, the default value a group of its own', async () => {
    expect(await records(w, 'PERMAP', a)).toEqual([
      { userId: a, MAP: 'none', PTS: 30, LVL: 4 },
      { userId: a, MAP: 'x', PTS: 20, LVL: 5 },
      { userId: a, MAP: 'y', PTS: -5, LVL: 3 },
    ]);
  });

  it('grouped with a filter → no record for a group whose values were all filtered out', async () => {
    expect(await records(w, 'PERMAPF', a)).toEqual([
      { userId: a, MAP: 'none', PTS: 30 },
      { userId: a, MAP: 'x', PTS: 10 },
    ]);
  });

  it('records are documents of the collection: count and find by query work, the _id names player and group', async () => {
    const docs = await w.find('PERMAP-runningTotal', { query: { MAP: 'x' }, sort: { userId: 1 } });
    expect(docs.map((d: { _id: string }) => d._id)).toEqual([a, b].sort().map((id) => `${id}|["x"]`));
    const best = await w.find('BEST-runningTotal', { query: { PTS: { $gte: 7 } } });
    expect(best).toHaveLength(2);
  });

  it('an unknown or missing eventKey → INVALID / REQUIRED, in the platform form with HTTP 200', async () => {
    const unknown = await w.rs('LogEventRequest', {
      '@class': '.LogEventRequest',
      eventKey: 'nope',
      playerId: a,
      requestId: 'q1',
    });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({
      '@class': '.LogEventResponse',
      error: { eventKey: 'INVALID' },
      requestId: 'q1',
    });
    expect((await w.ask('LogEventRequest', { playerId: a })).error).toEqual({ eventKey: 'REQUIRED' });
  });

  it('attributes missing without a default or of the wrong type → every one named; nothing is recorded', async () => {
    const before = await records(w, 'TOTAL', b);
    const answer = await w.ask('LogEventRequest', { eventKey: 'play', playerId: b, PTS: '7', NOTE: 5 });
    expect(answer.error).toEqual({ PTS: 'INVALID', TIME: 'REQUIRED', NOTE: 'INVALID' });
    expect(
      (await w.ask('LogEventRequest', { eventKey: 'play', playerId: b, PTS: 1.5, TIME: 1 })).error,
    ).toEqual({
      PTS: 'INVALID',
    });
    expect(await records(w, 'TOTAL', b)).toEqual(before);
  });

  it('playerId missing or unknown → REQUIRED / UNRECOGNISED', async () => {
    expect((await w.ask('LogEventRequest', { eventKey: 'play', PTS: 1, TIME: 1 })).error).toEqual({
      playerId: 'REQUIRED',
    });
    const ghost = await w.ask('LogEventRequest', {
      eventKey: 'play',
      playerId: '000000000000000000000000',
      PTS: 1,
      TIME: 1,
    });
    expect(ghost.error).toEqual({ playerId: 'UNRECOGNISED' });
  });
});
