// The requests API over HTTP: credentials, the envelope (@class, requestId, errors), the player requests,
// lockout, the 256 KB body limit, and the runtime fair-use limit apart from the management limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/log.js';
import { storeKind } from '../harness.js';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from './world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`runtime requests (${storeKind})`, () => {
  let w: RuntimeWorld;
  beforeAll(async () => {
    w = await startRuntimeWorld(GAME_CONFIG);
  });
  afterAll(async () => w.close());

  const body = { '@class': '.LeaderboardDataRequest', leaderboardShortCode: 'HSLB' };

  it('a wrong secret and a wrong credential name → the same 403, which names neither', async () => {
    const badSecret = await w.rs('LeaderboardDataRequest', body, { secret: `${w.secret}x` });
    const badName = await w.rs('LeaderboardDataRequest', body, { credential: 'nobody' });
    for (const res of [badSecret, badName]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'RUNTIME_CREDENTIAL_INVALID',
        message: 'The credential or its secret is not valid in this stage',
      });
    }
  });

  it('the credential may name its game as {apiKey}.{name}; another game’s key → 403', async () => {
    const ok = await w.rs('LeaderboardDataRequest', body, { credential: `${w.apiKey}.server` });
    expect(ok.statusCode).toBe(200);
    const other = await w.rs('LeaderboardDataRequest', body, { credential: 'zzzzzzzzzzzzzzzzzzzz.server' });
    expect(other.statusCode).toBe(403);
  });

  it('a reset secret: the new one works at once, the old one is refused within a second', async () => {
    const { secret } = await w.ok('POST', `/restv2/game/${w.apiKey}/config/~credentials/server/resetSecret`);
    expect((await w.rs('LeaderboardDataRequest', body, { secret })).statusCode).toBe(200);
    await sleep(1100);
    expect((await w.rs('LeaderboardDataRequest', body)).statusCode).toBe(403);
    w.secret = secret;
  });

  it('the answer names its @class and echoes requestId as sent; without one, none', async () => {
    const res = await w.rs('LeaderboardDataRequest', { ...body, requestId: 42 });
    expect(res.json()).toEqual({
      '@class': '.LeaderboardDataResponse',
      data: [],
      leaderboardShortCode: 'HSLB',
      requestId: 42,
    });
    const plain = await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'HSLB' });
    expect(plain).not.toHaveProperty('requestId');
  });

  it('an unknown request → 404; a body of another @class or not an object → 400', async () => {
    const unknown = await w.rs('FlyRequest', {});
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'RUNTIME_REQUEST_UNKNOWN']);
    const mismatch = await w.rs('LeaderboardDataRequest', { '@class': '.LogEventRequest' });
    expect([mismatch.statusCode, mismatch.json().code]).toEqual([400, 'RUNTIME_BAD_BODY']);
    const array = await w.rs('LeaderboardDataRequest', [1]);
    expect([array.statusCode, array.json().code]).toEqual([400, 'RUNTIME_BAD_BODY']);
  });

  it('a body over 256 KB → 413; one just under → answered', async () => {
    const pad = (n: number) => ({ ...body, pad: 'x'.repeat(n) });
    const big = await w.rs('LeaderboardDataRequest', pad(256 * 1024));
    expect([big.statusCode, big.json().code]).toEqual([413, 'BODY_TOO_LARGE']);
    expect((await w.rs('LeaderboardDataRequest', pad(250 * 1024))).statusCode).toBe(200);
  });

  it('logged URLs hide the secret of a runtime path', () => {
    expect(redactUrl('/live/rs/server/s3cr3t/LogEventRequest')).toBe(
      '/live/rs/server/[REDACTED]/LogEventRequest',
    );
  });

  it('RegistrationRequest → a new player; the name again → USERNAME TAKEN; missing fields → REQUIRED', async () => {
    const first = await w.ask('RegistrationRequest', {
      userName: 'neo',
      password: 'matrix-1',
      displayName: 'Neo',
    });
    expect(first).toMatchObject({ '@class': '.RegistrationResponse', displayName: 'Neo', newPlayer: true });
    expect(first.userId).toMatch(/^[0-9a-f]{24}$/);
    expect(typeof first.authToken).toBe('string');
    const again = await w.ask('RegistrationRequest', {
      userName: 'neo',
      password: 'other-2',
      displayName: 'N',
    });
    expect(again).toEqual({ '@class': '.RegistrationResponse', error: { USERNAME: 'TAKEN' } });
    expect((await w.ask('RegistrationRequest', { password: 'p' })).error).toEqual({ userName: 'REQUIRED' });
    expect((await w.ask('RegistrationRequest', { userName: 'u' })).error).toEqual({ password: 'REQUIRED' });
    expect((await w.ask('RegistrationRequest', { userName: 7, password: 'p' })).error).toEqual({
      userName: 'INVALID',
    });
  });

  it('the player document: user and display names, a hashed password, currencies, scriptData, externalIds, created', async () => {
    const [doc] = await w.find('player', { query: { userName: 'neo' } });
    expect(doc).toMatchObject({
      userName: 'neo',
      displayName: 'Neo',
      currency1: 0,
      currency6: 0,
      scriptData: {},
      externalIds: {},
      created: { $date: '2026-11-22T12:00:00.000Z' },
    });
    expect(doc.password).toMatch(/^scrypt\$/);
    expect(doc.password).not.toContain('matrix-1');
  });

  it('concurrent registrations of one name → exactly one player', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        w.ask('RegistrationRequest', { userName: 'twin', password: 'pw-twin-1' }),
      ),
    );
    expect(answers.filter((a) => a.newPlayer === true)).toHaveLength(1);
    expect(answers.filter((a) => a.error?.USERNAME === 'TAKEN')).toHaveLength(4);
    expect(await w.find('player', { query: { userName: 'twin' } })).toHaveLength(1);
  });

  it('AuthenticationRequest → the player; a wrong password or an unknown name → DETAILS UNRECOGNISED', async () => {
    const id = await w.player('trinity');
    const ok = await w.ask('AuthenticationRequest', { userName: 'trinity', password: 'pw-trinity' });
    expect(ok).toMatchObject({
      '@class': '.AuthenticationResponse',
      userId: id,
      displayName: 'Dr trinity',
      newPlayer: false,
    });
    expect((await w.ask('AuthenticationRequest', { userName: 'trinity', password: 'nope' })).error).toEqual({
      DETAILS: 'UNRECOGNISED',
    });
    expect((await w.ask('AuthenticationRequest', { userName: 'ghost', password: 'nope' })).error).toEqual({
      DETAILS: 'UNRECOGNISED',
    });
  });

  it('5 failures in a row → LOCKED, even with the right password, for 15 minutes of the clock', async () => {
    await w.player('morpheus');
    const login = (password: string) => w.ask('AuthenticationRequest', { userName: 'morpheus', password });
    for (let i = 0; i < 4; i++) expect((await login('bad')).error).toEqual({ DETAILS: 'UNRECOGNISED' });
    expect((await login('bad')).error).toEqual({ DETAILS: 'LOCKED' });
    expect((await login('pw-morpheus')).error).toEqual({ DETAILS: 'LOCKED' });
    w.server.now.advance(15 * 60_000 - 1);
    expect((await login('pw-morpheus')).error).toEqual({ DETAILS: 'LOCKED' });
    w.server.now.advance(1);
    expect((await login('pw-morpheus')).userId).toBeDefined();
  });

  it('a success clears earlier failures: 4 failures, a success, 4 failures → still UNRECOGNISED, not LOCKED', async () => {
    await w.player('oracle');
    const login = (password: string) => w.ask('AuthenticationRequest', { userName: 'oracle', password });
    for (let i = 0; i < 4; i++) await login('bad');
    expect((await login('pw-oracle')).userId).toBeDefined();
    for (let i = 0; i < 4; i++) expect((await login('bad')).error).toEqual({ DETAILS: 'UNRECOGNISED' });
  });

  it('DeviceAuthenticationRequest → a new player for a new device, the same player after; fields required', async () => {
    const first = await w.ask('DeviceAuthenticationRequest', {
      deviceId: 'dev-1',
      deviceOS: 'IOS',
      displayName: 'Phone',
    });
    expect(first).toMatchObject({
      '@class': '.AuthenticationResponse',
      newPlayer: true,
      displayName: 'Phone',
    });
    const again = await w.ask('DeviceAuthenticationRequest', { deviceId: 'dev-1', deviceOS: 'IOS' });
    expect(again).toMatchObject({ newPlayer: false, userId: first.userId });
    const other = await w.ask('DeviceAuthenticationRequest', { deviceId: 'dev-2', deviceOS: 'ANDROID' });
    expect(other.userId).not.toBe(first.userId);
    expect((await w.ask('DeviceAuthenticationRequest', { deviceOS: 'IOS' })).error).toEqual({
      deviceId: 'REQUIRED',
    });
    expect((await w.ask('DeviceAuthenticationRequest', { deviceId: 'd' })).error).toEqual({
      deviceOS: 'REQUIRED',
    });
  });

  it('a device whose player document was removed → a new player for it', async () => {
    const first = await w.ask('DeviceAuthenticationRequest', { deviceId: 'dev-gone', deviceOS: 'IOS' });
    await w.server.store.pool.query(
      `DELETE FROM nosql_documents WHERE game_id = $1 AND stage = 'preview' AND collection = 'player' AND id = $2`,
      [w.apiKey, `{"$oid":"${first.userId}"}`],
    );
    const again = await w.ask('DeviceAuthenticationRequest', { deviceId: 'dev-gone', deviceOS: 'IOS' });
    expect(again.newPlayer).toBe(true);
    expect(again.userId).not.toBe(first.userId);
  });

  it('AccountDetailsRequest → the player’s details; playerId missing or unknown → REQUIRED / UNRECOGNISED', async () => {
    const id = await w.player('cypher');
    expect(await w.ask('AccountDetailsRequest', { playerId: id, requestId: 'r' })).toEqual({
      '@class': '.AccountDetailsResponse',
      achievements: [],
      currency1: 0,
      currency2: 0,
      currency3: 0,
      currency4: 0,
      currency5: 0,
      currency6: 0,
      displayName: 'Dr cypher',
      externalIds: {},
      userId: id,
      virtualGoods: {},
      requestId: 'r',
    });
    expect((await w.ask('AccountDetailsRequest', {})).error).toEqual({ playerId: 'REQUIRED' });
    expect((await w.ask('AccountDetailsRequest', { playerId: 'nobody' })).error).toEqual({
      playerId: 'UNRECOGNISED',
    });
  });
});

describe(`runtime fair-use limit (${storeKind})`, () => {
  let w: RuntimeWorld;
  beforeAll(async () => {
    w = await startRuntimeWorld(GAME_CONFIG, {
      PLAYBASE_LIMIT_RUNTIME_PER_SECOND: '3',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '10',
    });
  });
  afterAll(async () => w.close());

  it('past the per-game runtime rate → 429 RATE_LIMITED with Retry-After; management calls are not charged', async () => {
    const body = { '@class': '.LeaderboardDataRequest', leaderboardShortCode: 'HSLB' };
    const answers = await Promise.all(Array.from({ length: 12 }, () => w.rs('LeaderboardDataRequest', body)));
    const refused = answers.filter((r) => r.statusCode === 429);
    // 3 a second: even spread over two windows, at most 6 of 12 pass.
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused[0]?.json().code).toBe('RATE_LIMITED');
    expect(refused[0]?.headers['retry-after']).toBeDefined();
    expect(answers.filter((r) => r.statusCode === 200).length).toBeGreaterThan(0);
    // Twelve runtime requests did not touch the game's management budget of 10 a minute.
    for (let i = 0; i < 5; i++) await w.ok('GET', `/restv2/game/${w.apiKey}/config`);
  });
});
