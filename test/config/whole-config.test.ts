import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getConfigVersion,
  loadCredentialHash,
  loadCredentialHashes,
  loadFullConfig,
  replaceFullConfig,
  verifyCredentialSecret,
} from '../../src/config/config-store.js';
import { withTransaction } from '../../src/store/db.js';
import { type ConfigWorld, startConfigWorld, WIN_RACE } from './world.js';

let w: ConfigWorld;
let secret = '';
const ref = (to: string) => ({ '@ref': to });

beforeAll(async () => {
  w = await startConfigWorld();
  await w.ok('POST', `${w.base}/~events`, WIN_RACE);
  await w.ok('POST', `${w.base}/~runningTotals`, {
    shortCode: 'bestScore',
    name: 'Best score',
    description: 'per track',
    event: ref('/~events/winRace'),
    groupBy: [ref('/~events/winRace/~attributes/TRACK')],
    collectors: [
      {
        attribute: ref('/~events/winRace/~attributes/SCORE'),
        calculation: 'MAX',
        filter: { operator: 'GE', value: 0 },
      },
    ],
  });
  await w.ok('POST', `${w.base}/~leaderboards`, {
    shortCode: 'topScores',
    name: 'Top scores',
    fields: [{ runningTotal: ref('/~runningTotals/bestScore'), collector: 'SCORE', sort: 'DESC' }],
    partitions: [{ attribute: 'TRACK' }],
    resetFrequency: 'MONTHLY',
  });
  await w.ok('POST', `${w.base}/~indexedTypes`, {
    shortCode: 'inventory',
    name: 'Inventory',
    fields: [{ name: 'owner', type: 'string' }],
  });
  secret = (await w.ok('POST', `${w.base}/~credentials`, { name: 'server' })).secret;
});
afterAll(() => w.close());

describe('GET /config', () => {
  it('without full → apiKey, version and the top-level entities by @id, shortCode, name', async () => {
    const res = await w.call('GET', w.base, w.owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      apiKey: w.apiKey,
      version: await getConfigVersion(w.server.store.pool, w.apiKey),
      '~events': [{ '@id': '/~events/winRace', shortCode: 'winRace', name: 'Win Race' }],
      '~runningTotals': [{ '@id': '/~runningTotals/bestScore', shortCode: 'bestScore', name: 'Best score' }],
      '~leaderboards': [{ '@id': '/~leaderboards/topScores', shortCode: 'topScores', name: 'Top scores' }],
      '~indexedTypes': [{ '@id': '/~indexedTypes/inventory', shortCode: 'inventory', name: 'Inventory' }],
      '~credentials': [{ '@id': '/~credentials/server', name: 'server' }],
    });
  });

  it('?full=true → one document holding everything, credentials without secrets; the same as loadFullConfig', async () => {
    const res = await w.call('GET', `${w.base}?full=true`, w.owner);
    expect(res.statusCode).toBe(200);
    const full = res.json();
    expect(Object.keys(full)).toEqual([
      'apiKey',
      '~events',
      '~runningTotals',
      '~leaderboards',
      '~indexedTypes',
      '~credentials',
    ]);
    expect(full['~events'][0]['~attributes']).toHaveLength(2);
    expect(full['~runningTotals'][0].collectors[0].filter).toEqual({ operator: 'GE', value: 0 });
    expect(full['~leaderboards'][0].resetFrequency).toBe('MONTHLY');
    expect(full['~credentials']).toEqual([{ '@id': '/~credentials/server', name: 'server' }]);
    expect(res.body).not.toContain(secret);
    expect(JSON.stringify(await loadFullConfig(w.server.store.pool, w.apiKey))).toBe(res.body);
  });

  it('with a JWT scoped to config (jwt/config) → 200', async () => {
    const res = await w.call('GET', `/restv2/auth/game/${w.apiKey}/jwt/config`, w.owner);
    const jwt = { 'x-svc-jwt': res.json()['X-SVC-JWT'] as string };
    expect((await w.call('GET', `${w.base}?full=true`, jwt)).statusCode).toBe(200);
  });

  it('?full=maybe → 400 VALIDATION_FAILED', async () => {
    const res = await w.call('GET', `${w.base}?full=maybe`, w.owner);
    expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('PUT /config', () => {
  it('round trip: GET full, PUT it to a new game, GET full again → identical but for apiKey', async () => {
    const original = await w.ok('GET', `${w.base}?full=true`);
    const other = `/restv2/game/${w.otherApiKey}/config`;
    const version = await getConfigVersion(w.server.store.pool, w.otherApiKey);
    const put = await w.call('PUT', other, w.owner, original);
    expect(put.statusCode).toBe(200);
    const copy = await w.ok('GET', `${other}?full=true`);
    expect(copy).toEqual({ ...original, apiKey: w.otherApiKey });
    expect(put.json()).toEqual(copy);
    expect(await getConfigVersion(w.server.store.pool, w.otherApiKey)).toBe(version + 1);
  });

  it('the copy’s new credential gets a secret nobody has seen: the source secret does not open it', async () => {
    const pool = w.server.store.pool;
    expect(await loadCredentialHash(pool, w.otherApiKey, 'server')).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyCredentialSecret(pool, w.otherApiKey, 'server', secret)).toBe(false);
  });

  it('PUT the same document back → existing credentials keep their secret', async () => {
    const doc = await w.ok('GET', `${w.base}?full=true`);
    await w.ok('PUT', w.base, doc);
    expect(await verifyCredentialSecret(w.server.store.pool, w.apiKey, 'server', secret)).toBe(true);
  });

  // biome-ignore lint/suspicious/noExplicitAny: each case breaks the JSON document in its own way
  const broken: [string, (doc: any) => void, string, string][] = [
    [
      'a running total on an event that does not exist',
      (doc) => {
        doc['~runningTotals'][0].event = ref('/~events/nope');
      },
      'CONFIG_REFERENCE_INVALID',
      '~runningTotals.0.event.@ref',
    ],
    [
      'an event without the attribute a running total collects',
      (doc) => {
        doc['~events'][0]['~attributes'].shift();
      },
      'CONFIG_REFERENCE_INVALID',
      '~runningTotals.0.collectors.0.attribute.@ref',
    ],
    [
      'two events with one shortCode',
      (doc) => {
        doc['~events'].push({ ...doc['~events'][0], '~attributes': [] });
      },
      'CONFIG_INVALID',
      '~events',
    ],
    [
      'two credentials with one name',
      (doc) => {
        doc['~credentials'].push({ name: 'server' });
      },
      'CONFIG_INVALID',
      '~credentials',
    ],
    [
      'an entity whose @id does not match its shortCode',
      (doc) => {
        doc['~leaderboards'][0]['@id'] = '/~leaderboards/other';
      },
      'CONFIG_INVALID',
      '~leaderboards.0.@id',
    ],
  ];
  for (const [name, breakIt, code, field] of broken) {
    it(`a document with ${name} → 400 ${code} naming ${field}; nothing changes`, async () => {
      const before = await w.ok('GET', `${w.base}?full=true`);
      const version = await getConfigVersion(w.server.store.pool, w.apiKey);
      const doc = structuredClone(before);
      breakIt(doc);
      const res = await w.call('PUT', w.base, w.owner, doc);
      expect([res.statusCode, res.json().code]).toEqual([400, code]);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await w.ok('GET', `${w.base}?full=true`)).toEqual(before);
      expect(await getConfigVersion(w.server.store.pool, w.apiKey)).toBe(version);
    });
  }

  it('a document with an unknown top-level key → 400 VALIDATION_FAILED', async () => {
    const res = await w.call('PUT', w.base, w.owner, { '~widgets': [] });
    expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('an empty document {} → everything removed, credentials included', async () => {
    const key = w.otherApiKey;
    const res = await w.call('PUT', `/restv2/game/${key}/config`, w.owner, {});
    expect(res.json()).toEqual({
      apiKey: key,
      '~events': [],
      '~runningTotals': [],
      '~leaderboards': [],
      '~indexedTypes': [],
      '~credentials': [],
    });
    expect(await loadCredentialHash(w.server.store.pool, key, 'server')).toBeUndefined();
    // An empty summary still answers as a summary (with its version), not as an empty full document.
    const summary = await w.ok('GET', `/restv2/game/${key}/config`);
    expect(summary.version).toBe(await getConfigVersion(w.server.store.pool, key));
    expect(summary['~events']).toEqual([]);
  });
});

describe('replaceFullConfig (for snapshot revert and copy)', () => {
  it('credentialHashes carry a secret to another game', async () => {
    const pool = w.server.store.pool;
    const doc = await loadFullConfig(pool, w.apiKey);
    const hashes = await loadCredentialHashes(pool, w.apiKey);
    await withTransaction(pool, (c) =>
      replaceFullConfig(c, w.otherApiKey, doc, { credentialHashes: hashes }),
    );
    expect(await verifyCredentialSecret(pool, w.otherApiKey, 'server', secret)).toBe(true);
  });

  it('a refused document leaves the caller’s transaction usable (savepoint)', async () => {
    const pool = w.server.store.pool;
    const after = await withTransaction(pool, async (c) => {
      await expect(replaceFullConfig(c, w.apiKey, { '~events': [{ name: 'x' }] })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      });
      return (await c.query('SELECT 1 AS one')).rows[0];
    });
    expect(after).toEqual({ one: 1 });
  });

  it('an unknown game → GAME_NOT_FOUND and the caller’s transaction stays usable', async () => {
    const pool = w.server.store.pool;
    await withTransaction(pool, async (c) => {
      await expect(replaceFullConfig(c, 'nosuchgame', {})).rejects.toMatchObject({ code: 'GAME_NOT_FOUND' });
      expect((await c.query('SELECT 2 AS two')).rows[0]).toEqual({ two: 2 });
    });
  });
});
