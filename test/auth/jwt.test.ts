// Game JWTs: shape and claims, lifetime, scopes, pinned algorithm, JWKS, key rotation, split-mode verification.
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteJwtVerifier } from '../../src/auth/jwt.js';
import { OWNER_PERMISSIONS } from '../../src/auth/permissions.js';
import { startTestServer, type TestServer } from '../harness.js';
import { freePort } from '../processes.js';
import {
  addCollaborator,
  adminToken,
  call,
  createGame,
  createUser,
  decodeJwt,
  issueJwt,
  jwtHeader,
  tokenHeader,
  type User,
} from './helpers.js';

const HOUR = 3600;

describe('JWT issuance', () => {
  let server: TestServer;
  let owner: User;
  let dev: User;
  let stranger: User;
  let game: string;
  let other: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@jwt.test');
    dev = await createUser(server, 'dev@jwt.test');
    stranger = await createUser(server, 'stranger@jwt.test');
    game = await createGame(server, owner, 'jwt game');
    other = await createGame(server, owner, 'other game');
    await addCollaborator(server, owner, game, dev.username, ['Developer']);
    await addCollaborator(server, owner, other, dev.username, ['ReadOnly']);
  });
  afterAll(() => server.close());

  it('JWT for a game → EdDSA with a kid from the JWKS, 1 hour, the caller, that game and its permissions', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/jwt`, tokenHeader(dev.token));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['X-SVC-JWT', 'expiresAt', 'username']);
    expect(body.username).toBe(dev.username);
    const jwks = (await call(server, 'GET', '/restv2/auth/.well-known/jwks.json')).json();
    const { payload, protectedHeader } = await jwtVerify(body['X-SVC-JWT'], createLocalJWKSet(jwks), {
      currentDate: new Date(server.now.value),
    });
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(protectedHeader.kid);
    const iat = Math.floor(server.now.value / 1000);
    expect(payload).toMatchObject({
      iss: 'playbase',
      sub: dev.username,
      username: dev.username,
      apiKey: game,
      groups: ['Developer'],
      scope: 'all',
      owner: false,
      iat,
      exp: iat + HOUR,
    });
    expect(body.expiresAt).toBe((iat + HOUR) * 1000);
    // Only this game: the ReadOnly membership of the other game is not carried.
    expect(Object.keys(payload.permissions as object)).toEqual([game]);
    const perms = (payload.permissions as Record<string, Record<string, number>>)[game];
    expect(perms).toMatchObject({ configurator: 2, nosql: 2, 'admin.permissions': 1 });
  });

  it('owner → owner claim and every root key at level 2', async () => {
    const { claims } = decodeJwt(await issueJwt(server, owner, game));
    expect(claims.owner).toBe(true);
    expect(claims.permissions).toEqual({ [game]: OWNER_PERMISSIONS });
  });

  it('Basic instead of an access token → the same JWT response', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/jwt`, {
      authorization: `Basic ${Buffer.from(`${dev.username}:${dev.password}`).toString('base64')}`,
    });
    expect(res.statusCode).toBe(200);
    expect(decodeJwt(res.json()['X-SVC-JWT']).claims.username).toBe(dev.username);
  });

  it('access token as the X-SVCAccessToken query parameter (older scripted clients) → 200', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/jwt?X-SVCAccessToken=${dev.token}`);
    expect(res.statusCode).toBe(200);
  });

  it('expireInSeconds=60 → lifetime 60 s; the JWT works at 59 s and is refused TOKEN_EXPIRED at 60 s', async () => {
    const jwt = await issueJwt(server, dev, game, '?expireInSeconds=60');
    const { claims } = decodeJwt(jwt);
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    const url = `/restv2/auth/game/${game}/permissions`;
    server.now.advance(59_000);
    expect((await call(server, 'GET', url, jwtHeader(jwt))).statusCode).toBe(200);
    server.now.advance(1_000);
    const res = await call(server, 'GET', url, jwtHeader(jwt));
    expect([res.statusCode, res.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
  });

  it('expireInSeconds=3600 → accepted; 0, 3601, -5, 1.5, abc and empty → 400 EXPIRY_INVALID', async () => {
    const ok = await call(
      server,
      'GET',
      `/restv2/auth/game/${game}/jwt?expireInSeconds=3600`,
      tokenHeader(dev.token),
    );
    expect(ok.statusCode).toBe(200);
    for (const bad of ['0', '3601', '-5', '1.5', 'abc', '']) {
      const res = await call(
        server,
        'GET',
        `/restv2/auth/game/${game}/jwt/nosql?expireInSeconds=${bad}`,
        tokenHeader(dev.token),
      );
      expect([bad, res.statusCode, res.json().code]).toEqual([bad, 400, 'EXPIRY_INVALID']);
    }
  });

  it('scoped JWT (nosql, config, admin) → only that scope’s keys, scope claim set, and a smaller token', async () => {
    const full = await issueJwt(server, dev, game);
    const expected: Record<string, string[]> = {
      nosql: ['nosql', 'nosql.admin', 'nosql.dataExplorer', 'nosql.leaderboards', 'nosql.players'],
      config: ['configurator', 'game'],
      admin: ['admin', 'admin.permissions', 'admin.pushNotifications', 'admin.snapshots', 'game', 'manage'],
    };
    for (const [scope, keys] of Object.entries(expected)) {
      const scoped = await issueJwt(server, dev, game, `/${scope}`);
      const { claims } = decodeJwt(scoped);
      expect(claims.scope).toBe(scope);
      expect(Object.keys((claims.permissions as Record<string, object>)[game] as object).sort()).toEqual(
        keys,
      );
      expect(scoped.length).toBeLessThan(full.length);
    }
  });

  it('nosql-scoped JWT on a route needing admin.permissions → 403 PERMISSION_DENIED (the full one passes)', async () => {
    const url = `/restv2/auth/game/${game}/collaborators`;
    const scoped = await issueJwt(server, dev, game, '/nosql');
    const res = await call(server, 'GET', url, jwtHeader(scoped));
    expect([res.statusCode, res.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const full = await issueJwt(server, dev, game);
    expect((await call(server, 'GET', url, jwtHeader(full))).statusCode).toBe(200);
  });

  it('nosql-scoped JWT of one game → no game created, no games listed, another deleted game not restored (401 CREDENTIAL_NOT_ACCEPTED)', async () => {
    const scoped = jwtHeader(await issueJwt(server, owner, game, '/nosql'));
    const binned = await createGame(server, owner, 'binned');
    expect(
      (await call(server, 'DELETE', `/restv2/game/${binned}`, tokenHeader(owner.token))).statusCode,
    ).toBe(200);
    const attempts = [
      await call(server, 'POST', '/restv2/games', scoped, { name: 'made with a data JWT' }),
      await call(server, 'GET', '/restv2/games', scoped),
      await call(server, 'GET', '/restv2/auth/games', scoped),
      await call(server, 'GET', '/restv2/games/deleted', scoped),
      await call(server, 'POST', `/restv2/game/${binned}/restore`, scoped),
    ];
    for (const res of attempts) {
      expect([res.statusCode, res.json().code]).toEqual([401, 'CREDENTIAL_NOT_ACCEPTED']);
    }
    const games = await call(server, 'GET', '/restv2/games', tokenHeader(owner.token));
    expect(games.json().map((g: { name: string }) => g.name)).not.toContain('made with a data JWT');
    const deleted = await call(server, 'GET', '/restv2/games/deleted', tokenHeader(owner.token));
    expect(deleted.json().map((g: { apiKey: string }) => g.apiKey)).toContain(binned);
  });

  it('unknown filter → 400 JWT_UNKNOWN_FILTER naming the known scopes', async () => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/jwt/everything`, tokenHeader(dev.token));
    expect([res.statusCode, res.json().code]).toEqual([400, 'JWT_UNKNOWN_FILTER']);
    expect(res.json().message).toContain('nosql, config, admin');
  });

  it('no part in the game → 403 GAME_ACCESS_DENIED; unknown game → 404 GAME_NOT_FOUND', async () => {
    const denied = await call(server, 'GET', `/restv2/auth/game/${game}/jwt`, tokenHeader(stranger.token));
    expect([denied.statusCode, denied.json().code]).toEqual([403, 'GAME_ACCESS_DENIED']);
    const missing = await call(
      server,
      'GET',
      '/restv2/auth/game/nosuchgame/jwt/nosql',
      tokenHeader(dev.token),
    );
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });

  it('game moved to the recycle bin → 404 GAME_NOT_FOUND for a new JWT', async () => {
    const doomed = await createGame(server, owner, 'doomed');
    expect(
      (await call(server, 'DELETE', `/restv2/game/${doomed}`, tokenHeader(owner.token))).statusCode,
    ).toBe(200);
    const res = await call(server, 'GET', `/restv2/auth/game/${doomed}/jwt`, tokenHeader(owner.token));
    expect([res.statusCode, res.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
  });

  it('JWT of one game on another game → 403 JWT_WRONG_GAME', async () => {
    const jwt = await issueJwt(server, dev, other);
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, jwtHeader(jwt));
    expect([res.statusCode, res.json().code]).toEqual([403, 'JWT_WRONG_GAME']);
  });
});

describe('JWT verification is pinned to EdDSA and to our keys', () => {
  let server: TestServer;
  let owner: User;
  let game: string;
  let real: string;
  let kid: string;
  let url: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@pin.test');
    game = await createGame(server, owner);
    real = await issueJwt(server, owner, game);
    kid = decodeJwt(real).header.kid as string;
    url = `/restv2/auth/game/${game}/permissions`;
  });
  afterAll(() => server.close());

  const claims = () => decodeJwt(real).claims;
  const refused = async (jwt: string) => {
    const res = await call(server, 'GET', url, jwtHeader(jwt));
    return [res.statusCode, res.json().code];
  };

  it('the genuine JWT → 200 (the forgeries below differ only in what they test)', async () => {
    expect((await call(server, 'GET', url, jwtHeader(real))).statusCode).toBe(200);
  });

  it('alg none → 401 JWT_INVALID', async () => {
    const c = claims();
    const jwt = new UnsecuredJWT(c).setIssuer('playbase').encode();
    expect(await refused(jwt)).toEqual([401, 'JWT_INVALID']);
  });

  it('HS256 keyed with the public key bytes and our kid (key confusion) → 401 JWT_INVALID', async () => {
    const jwks = (await call(server, 'GET', '/restv2/auth/.well-known/jwks.json')).json();
    const x = Buffer.from(jwks.keys[0].x, 'base64url');
    const jwt = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid }).sign(x);
    expect(await refused(jwt)).toEqual([401, 'JWT_INVALID']);
  });

  it('EdDSA signed by a foreign key under our kid → 401 JWT_INVALID', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const jwt = await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA', kid }).sign(privateKey);
    expect(await refused(jwt)).toEqual([401, 'JWT_INVALID']);
  });

  it('RS256 signed by a foreign key under an unknown kid → 401 JWT_INVALID', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const jwt = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'RS256', kid: 'rogue' })
      .sign(privateKey);
    expect(await refused(jwt)).toEqual([401, 'JWT_INVALID']);
  });

  it('payload changed after signing, genuine token just verified (same signature) → 401 JWT_INVALID', async () => {
    // Verified JWTs are remembered by their signature: the forgery carries the remembered one's.
    expect((await call(server, 'GET', url, jwtHeader(real))).statusCode).toBe(200);
    const [h, , s] = real.split('.');
    const forged = { ...claims(), exp: (claims().exp as number) + 86_400 };
    const jwt = `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`;
    expect(await refused(jwt)).toEqual([401, 'JWT_INVALID']);
  });

  it('garbage in X-SVC-JWT → 401 JWT_INVALID', async () => {
    expect(await refused('not.a.jwt')).toEqual([401, 'JWT_INVALID']);
    expect(await refused('x')).toEqual([401, 'JWT_INVALID']);
  });

  it('JWKS document → Ed25519 public keys only (no private part)', async () => {
    const jwks = (await call(server, 'GET', '/restv2/auth/.well-known/jwks.json')).json();
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(key).not.toHaveProperty('d');
    }
    // The same check with a key we hold the private part of: exportJWK of a public key has no d either.
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    expect(Object.keys(await exportJWK(publicKey)).sort()).toEqual(
      Object.keys(jwks.keys[0])
        .filter((k) => !['kid', 'alg', 'use'].includes(k))
        .sort(),
    );
  });
});

describe('key rotation', () => {
  let server: TestServer;
  let owner: User;
  let game: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@rotate.test');
    game = await createGame(server, owner);
  });
  afterAll(() => server.close());

  const kids = async () =>
    (await call(server, 'GET', '/restv2/auth/.well-known/jwks.json'))
      .json()
      .keys.map((k: { kid: string }) => k.kid);

  it('rotate → new JWTs carry the new kid; old ones verify until they expire; the old key leaves the JWKS after', async () => {
    const before = await issueJwt(server, owner, game);
    const oldKid = decodeJwt(before).header.kid;
    const res = await call(server, 'POST', '/restv2/auth/keys/rotate', tokenHeader(await adminToken(server)));
    expect(res.statusCode).toBe(200);
    const newKid = res.json().kid;
    expect(newKid).not.toBe(oldKid);
    const after = await issueJwt(server, owner, game);
    expect(decodeJwt(after).header.kid).toBe(newKid);
    expect((await kids()).sort()).toEqual([oldKid, newKid].sort());

    const url = `/restv2/auth/game/${game}/permissions`;
    server.now.advance(59 * 60_000);
    expect((await call(server, 'GET', url, jwtHeader(before))).statusCode).toBe(200);
    server.now.advance(60_000);
    const expired = await call(server, 'GET', url, jwtHeader(before));
    expect([expired.statusCode, expired.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
    server.now.advance(6 * 60_000);
    expect(await kids()).toEqual([newKid]);
  });
});

describe('split-mode verifier (JWKS over HTTP)', () => {
  let server: TestServer;
  let owner: User;
  let game: string;
  beforeAll(async () => {
    server = await startTestServer();
    await server.listen();
    owner = await createUser(server, 'owner@remote.test');
    game = await createGame(server, owner);
  });
  afterAll(() => server.close());

  it('key rotated after the JWKS was fetched → a JWT of the new key verifies (unknown kid refetches)', async () => {
    const verify = remoteJwtVerifier(server.settings.authUrl);
    const t0 = server.now.value;
    expect((await verify(await issueJwt(server, owner, game), t0)).apiKey).toBe(game);
    await call(server, 'POST', '/restv2/auth/keys/rotate', tokenHeader(await adminToken(server)));
    const rotated = await issueJwt(server, owner, game);
    expect((await verify(rotated, t0 + 6_000)).username).toBe(owner.username);
  });

  it('auth server gone for longer than the cache age → JWTs still verify; a forged one is still refused', async () => {
    const standalone = await startTestServer();
    await standalone.listen();
    const who = await createUser(standalone, 'owner@down.test');
    const g = await createGame(standalone, who);
    const jwt = await issueJwt(standalone, who, g);
    const verify = remoteJwtVerifier(standalone.settings.authUrl);
    const t0 = standalone.now.value;
    expect((await verify(jwt, t0)).apiKey).toBe(g);
    await standalone.close();
    // 30 minutes on, the cached keys are stale and cannot be refreshed: they keep serving.
    expect((await verify(jwt, t0 + 30 * 60_000)).apiKey).toBe(g);
    expect((await verify(jwt, t0 + 50 * 60_000)).username).toBe(who.username);
    const [h, p] = jwt.split('.');
    await expect(verify(`${h}.${p}.AAAA`, t0 + 50 * 60_000)).rejects.toMatchObject({ code: 'JWT_INVALID' });
  });

  it('auth server never reached → 503 AUTH_SERVER_UNAVAILABLE rather than a verdict on the JWT', async () => {
    const verify = remoteJwtVerifier(`http://127.0.0.1:${await freePort()}`);
    const jwt = await issueJwt(server, owner, game);
    await expect(verify(jwt, server.now.value)).rejects.toMatchObject({
      status: 503,
      code: 'AUTH_SERVER_UNAVAILABLE',
    });
  });
});
