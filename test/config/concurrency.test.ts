import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfigVersion } from '../../src/config/config-store.js';
import { storeKind } from '../harness.js';
import { type ConfigWorld, type Headers, startConfigWorld } from './world.js';

let w: ConfigWorld;
beforeAll(async () => {
  w = await startConfigWorld();
});
afterAll(() => w.close());

describe(`concurrent updates to one event (${storeKind})`, () => {
  it('many clients adding and changing attributes at once → every acknowledged change is kept', async () => {
    const event = `${w.base}/~events/race`;
    await w.ok('POST', `${w.base}/~events`, {
      name: 'Race',
      shortCode: 'race',
      description: '',
      '~attributes': Array.from({ length: 8 }, (_, i) => ({
        name: `P${i}`,
        shortCode: `P${i}`,
        dataType: 'int',
        defaultAggregationType: 'SUM',
      })),
    });
    // Four Developer collaborators, six requests each: under the per-user limit of ten concurrent writes.
    const clients: Headers[] = [];
    for (let i = 0; i < 4; i++) clients.push(await w.collaborator(['Developer']));
    const version = await getConfigVersion(w.server.store.pool, w.apiKey);

    type Attributes = Map<string, { defaultValue: unknown }>;
    interface Request {
      as: Headers;
      method: 'POST' | 'PATCH';
      url: string;
      body: Record<string, unknown>;
      /** What the stored event must show once this request was acknowledged. */
      kept(attributes: Attributes): boolean;
    }
    const add = (i: number): Request => ({
      as: clients[i % 4] as Headers,
      method: 'POST',
      url: `${event}/~attributes`,
      body: { name: `A${i}`, shortCode: `A${i}`, dataType: 'number', defaultAggregationType: 'MAX' },
      kept: (attributes) => attributes.has(`A${i}`),
    });
    const change = (i: number): Request => ({
      as: clients[(i + 1) % 4] as Headers,
      method: 'PATCH',
      url: `${event}/~attributes/P${i}`,
      body: { defaultValue: 100 + i },
      kept: (attributes) => attributes.get(`P${i}`)?.defaultValue === 100 + i,
    });
    // Interleaved: two additions, then one change, so that both kinds race each other.
    const requests = Array.from({ length: 8 }, (_, i) => [add(2 * i), add(2 * i + 1), change(i)]).flat();
    const answers = await Promise.all(requests.map((r) => w.call(r.method, r.url, r.as, r.body)));

    const acknowledged = requests.filter((_, i) => (answers[i]?.statusCode ?? 0) < 300);
    // A refusal may only be the concurrency limiter's; anything else is a bug.
    for (const a of answers.filter((x) => x.statusCode >= 300)) {
      expect([a.statusCode, a.json().code]).toEqual([429, 'TOO_MANY_CONCURRENT']);
    }
    expect(acknowledged.length).toBeGreaterThan(0);

    const stored = await w.ok('GET', event);
    const attributes: Attributes = new Map(
      stored['~attributes'].map((a: { shortCode: string; defaultValue: unknown }) => [a.shortCode, a]),
    );
    for (const r of acknowledged)
      expect(r.kept(attributes), `${r.method} ${r.url} ${JSON.stringify(r.body)}`).toBe(true);
    // Each acknowledged change raised the version by exactly one: none was applied twice or merged away.
    expect(await getConfigVersion(w.server.store.pool, w.apiKey)).toBe(version + acknowledged.length);
  });
});
