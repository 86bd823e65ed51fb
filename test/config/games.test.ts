import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listConfiguredCollections } from '../../src/config/config-store.js';
import { type ConfigWorld, type Headers, startConfigWorld, tokenOf } from './world.js';

const DAY = 24 * 3600 * 1000;

describe('recycle bin (10 days, controllable clock)', () => {
  let w: ConfigWorld;
  let game = '';
  let binnedJwt: Headers = {};
  const rt = {
    shortCode: 'wins',
    name: 'Wins',
    event: { '@ref': '/~events/e' },
    collectors: [{ attribute: { '@ref': '/~events/e/~attributes/N' }, calculation: 'SUM' }],
  };
  beforeAll(async () => {
    w = await startConfigWorld();
    game = (await w.ok('POST', '/restv2/games', { name: 'Binned' })).apiKey;
    await w.ok('POST', `/restv2/game/${game}/config/~events`, {
      name: 'E',
      shortCode: 'e',
      description: '',
      '~attributes': [{ name: 'N', shortCode: 'N', dataType: 'int', defaultAggregationType: 'SUM' }],
    });
    await w.ok('POST', `/restv2/game/${game}/config/~runningTotals`, rt);
    binnedJwt = await w.jwt(w.owner, game);
  });
  afterAll(() => w.close());

  it('DELETE the game → SUCCESS; it is listed as deleted; its configuration answers 404 GAME_NOT_FOUND', async () => {
    expect(await w.ok('DELETE', `/restv2/game/${game}`)).toEqual({ message: 'SUCCESS' });
    const deleted = await w.ok('GET', '/restv2/games/deleted');
    expect(deleted.map((g: { apiKey: string }) => g.apiKey)).toEqual([game]);
    expect(deleted[0].deleted).toBe(new Date(w.server.now.value).toISOString());
    const res = await w.call('GET', `/restv2/game/${game}/config/~events`, w.owner);
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });

  it('a JWT issued for the game before its deletion → its configuration writes answer 404 GAME_NOT_FOUND', async () => {
    const res = await w.call('POST', `/restv2/game/${game}/config/~events`, binnedJwt, {
      name: 'x',
      shortCode: 'x',
      description: '',
    });
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });

  it('restore by someone else → 404 GAME_NOT_DELETED', async () => {
    const stranger = await w.collaborator([]);
    const res = await w.call('POST', `/restv2/game/${game}/restore`, stranger);
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_DELETED']);
  });

  it('9 days later → still in the bin; restore → the game and its configuration are back', async () => {
    w.server.now.advance(9 * DAY);
    const owner = await tokenOf(w.server, w.ownerName);
    expect((await w.call('GET', '/restv2/games/deleted', owner)).json()).toHaveLength(1);
    const restored = await w.call('POST', `/restv2/game/${game}/restore`, owner);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ apiKey: game, name: 'Binned' });
    expect(restored.json().deleted).toBeUndefined();
    const events = await w.call('GET', `/restv2/game/${game}/config/~events`, owner);
    expect(events.json().map((e: { shortCode: string }) => e.shortCode)).toEqual(['e']);
  });

  it('deleted again, 10 days later → purged for good with its configuration; restore → 404 GAME_NOT_DELETED', async () => {
    const owner = await tokenOf(w.server, w.ownerName);
    await w.call('DELETE', `/restv2/game/${game}`, owner);
    w.server.now.advance(10 * DAY);
    const fresh: Headers = await tokenOf(w.server, w.ownerName);
    expect((await w.call('GET', '/restv2/games/deleted', fresh)).json()).toEqual([]);
    const res = await w.call('POST', `/restv2/game/${game}/restore`, fresh);
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_DELETED']);
    const pool = w.server.store.pool;
    const left = await pool.query('SELECT 1 FROM game_configs WHERE api_key = $1', [game]);
    expect(left.rowCount).toBe(0);
    expect(await listConfiguredCollections(pool, game)).toEqual({ runningTotals: [], leaderboards: [] });
  });
});

describe('PLAYBASE_DEFAULT_CLUSTER', () => {
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await startConfigWorld({
      PUBLIC_URL: 'https://config.example.com',
      PLAYBASE_CLUSTERS: JSON.stringify({
        eu: { liveNosql: 'https://eu.example.com/live', previewNosql: 'https://eu.example.com/preview' },
      }),
      PLAYBASE_DEFAULT_CLUSTER: 'eu',
    });
  });
  afterAll(() => w.close());

  it('a game created without a cluster → on the default cluster, discovery answers its URLs', async () => {
    const game = await w.ok('POST', '/restv2/games', { name: 'Default EU' });
    expect(game.cluster).toBe('eu');
    const res = await w.call('GET', `/restv2/game/${game.apiKey}/endpoints`, w.owner);
    expect(res.json()).toMatchObject({
      liveNosql: 'https://eu.example.com/live',
      previewNosql: 'https://eu.example.com/preview',
    });
  });

  it('a cluster named in the creation → that cluster, not the default', async () => {
    expect((await w.ok('POST', '/restv2/games', { name: 'Local one', cluster: 'local' })).cluster).toBe(
      'local',
    );
  });
});

describe('endpoint discovery (PLAYBASE_CLUSTERS templates)', () => {
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await startConfigWorld({
      PUBLIC_URL: 'https://config.example.com',
      PLAYBASE_CLUSTERS: JSON.stringify({
        eu: {
          liveNosql: 'https://{apiKey}.{stage}.eu.example.com/nosql',
          previewNosql: 'https://{apiKey}.{stage}.eu.example.com/nosql',
          liveElasticSearch: 'https://search.eu.example.com/{stage}/{apiKey}',
        },
      }),
    });
  });
  afterAll(() => w.close());

  it('a game on cluster eu → its four URLs with {apiKey} and {stage} filled in; an unset one is null', async () => {
    const game = (await w.ok('POST', '/restv2/games', { name: 'EU game', cluster: 'eu' })).apiKey;
    const res = await w.call('GET', `/restv2/game/${game}/endpoints`, w.owner);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(
      JSON.stringify({
        liveNosql: `https://${game}.live.eu.example.com/nosql`,
        previewNosql: `https://${game}.preview.eu.example.com/nosql`,
        liveElasticSearch: `https://search.eu.example.com/live/${game}`,
        previewElasticSearch: null,
      }),
    );
  });

  it('a game on the default cluster → the local stages under the public URL', async () => {
    const res = await w.call('GET', `/restv2/game/${w.apiKey}/endpoints`, w.owner);
    expect(res.json()).toEqual({
      liveNosql: 'https://config.example.com/live',
      previewNosql: 'https://config.example.com/preview',
      liveElasticSearch: null,
      previewElasticSearch: null,
    });
  });

  it('a cluster not in the registry → 400 CLUSTER_UNKNOWN', async () => {
    const res = await w.call('POST', '/restv2/games', w.owner, { name: 'Nowhere', cluster: 'mars' });
    expect([res.statusCode, res.json().code]).toEqual([400, 'CLUSTER_UNKNOWN']);
  });

  it('a cluster named like an object property (constructor, toString) → 400 CLUSTER_UNKNOWN', async () => {
    for (const cluster of ['constructor', 'toString', '__proto__']) {
      const res = await w.call('POST', '/restv2/games', w.owner, { name: 'Proto', cluster });
      expect([cluster, res.statusCode, res.json().code]).toEqual([cluster, 400, 'CLUSTER_UNKNOWN']);
    }
  });

  it('a JWT of another game → 403 JWT_WRONG_GAME; an expired token → 401 TOKEN_EXPIRED', async () => {
    const jwt = await w.jwt(w.owner, w.otherApiKey);
    const expired = await tokenOf(w.server, w.ownerName, 1);
    w.server.now.advance(2000);
    const wrong = await w.call('GET', `/restv2/game/${w.apiKey}/endpoints`, jwt);
    const late = await w.call('GET', `/restv2/game/${w.apiKey}/endpoints`, expired);
    expect([wrong.statusCode, wrong.json().code, late.statusCode, late.json().code]).toEqual([
      403,
      'JWT_WRONG_GAME',
      401,
      'TOKEN_EXPIRED',
    ]);
  });
});

describe('rename (PATCH /restv2/game/{apiKey})', () => {
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await startConfigWorld();
  });
  afterAll(() => w.close());

  it('a new name → the game with it; the list shows it; the audit log has a game.patch entry', async () => {
    const res = await w.call('PATCH', `/restv2/game/${w.apiKey}`, w.owner, { name: 'Space Miners 2' });
    expect([res.statusCode, res.json().name, res.json().apiKey]).toEqual([200, 'Space Miners 2', w.apiKey]);
    expect((await w.ok('GET', `/restv2/game/${w.apiKey}`)).name).toBe('Space Miners 2');
    const mine = await w.ok('GET', '/restv2/games');
    expect(JSON.stringify(mine)).toContain('Space Miners 2');
    const audit = await w.ok('GET', `/restv2/game/${w.apiKey}/admin/audit`);
    expect(audit.entries[0]).toMatchObject({ action: 'game.patch', method: 'PATCH', status: 200 });
  });

  it('bad names → 400 with the field; nothing changes', async () => {
    for (const body of [
      { name: '' },
      { name: 'x'.repeat(201) },
      {},
      { name: null },
      { name: 'ok', extra: 1 },
    ]) {
      const res = await w.call('PATCH', `/restv2/game/${w.apiKey}`, w.owner, body);
      expect([JSON.stringify(body), res.statusCode]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await w.ok('GET', `/restv2/game/${w.apiKey}`)).name).toBe('Space Miners 2');
  });

  it('a read-only collaborator → 403 PERMISSION_DENIED; an expired token → 401 TOKEN_EXPIRED', async () => {
    const reader = await w.collaborator(['ReadOnly']);
    const denied = await w.call('PATCH', `/restv2/game/${w.apiKey}`, reader, { name: 'Mine now' });
    const expired = await tokenOf(w.server, w.ownerName, 1);
    w.server.now.advance(2000);
    const late = await w.call('PATCH', `/restv2/game/${w.apiKey}`, expired, { name: 'Late' });
    expect([denied.statusCode, denied.json().code, late.statusCode, late.json().code]).toEqual([
      403,
      'PERMISSION_DENIED',
      401,
      'TOKEN_EXPIRED',
    ]);
    expect((await w.ok('GET', `/restv2/game/${w.apiKey}`)).name).toBe('Space Miners 2');
  });

  it('a game in the recycle bin → 404 GAME_NOT_FOUND', async () => {
    const game = (await w.ok('POST', '/restv2/games', { name: 'Bin me' })).apiKey;
    await w.ok('DELETE', `/restv2/game/${game}`);
    const res = await w.call('PATCH', `/restv2/game/${game}`, w.owner, { name: 'Back?' });
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });
});
