import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getConfigVersion,
  loadCredentialHash,
  verifyCredentialSecret,
} from '../../src/config/config-store.js';
import { openPushCredentials } from '../../src/config/push/credentials.js';
import { deriveKey } from '../../src/config/push/secret-box.js';
import { loadPushCredentials } from '../../src/config/push-config.js';
import { loadSettings } from '../../src/settings.js';
import { type ConfigWorld, startConfigWorld } from './world.js';

const ecKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const PUSH = {
  apple: { keyPem: ecKey, keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', topic: 'com.example.game' },
  google: {
    serviceAccount: {
      project_id: 'example-game',
      client_email: 'push@example-game.iam.gserviceaccount.com',
      private_key: rsaKey,
      private_key_id: 'k1',
    },
  },
};
const VIEW = {
  apple: { keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', topic: 'com.example.game' },
  google: { projectId: 'example-game', clientEmail: 'push@example-game.iam.gserviceaccount.com' },
};

describe('server credentials', () => {
  let w: ConfigWorld;
  let secret = '';
  beforeAll(async () => {
    w = await startConfigWorld();
  });
  afterAll(() => w.close());

  it('POST ~credentials {name} → 201 {@id, name, secret}; the secret is 32 random bytes in base64url', async () => {
    const res = await w.call('POST', `${w.base}/~credentials`, w.owner, { name: 'server' });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.json())).toEqual(['@id', 'name', 'secret']);
    expect(res.json()).toMatchObject({ '@id': '/~credentials/server', name: 'server' });
    secret = res.json().secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('the secret is stored only as its SHA-256, and verifies', async () => {
    const pool = w.server.store.pool;
    const hash = await loadCredentialHash(pool, w.apiKey, 'server');
    expect(hash).toBe(createHash('sha256').update(secret).digest('hex'));
    const { rows } = await pool.query('SELECT * FROM config_credentials WHERE api_key = $1', [w.apiKey]);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(await verifyCredentialSecret(pool, w.apiKey, 'server', secret)).toBe(true);
    expect(await verifyCredentialSecret(pool, w.apiKey, 'server', `${secret}x`)).toBe(false);
    expect(await verifyCredentialSecret(pool, w.apiKey, 'nobody', secret)).toBe(false);
  });

  it('GET list and GET one → {@id, name}, never the secret', async () => {
    const list = await w.call('GET', `${w.base}/~credentials`, w.owner);
    expect(list.json()).toEqual([{ '@id': '/~credentials/server', name: 'server' }]);
    const one = await w.call('GET', `${w.base}/~credentials/server`, w.owner);
    expect(one.json()).toEqual({ '@id': '/~credentials/server', name: 'server' });
    expect(list.body + one.body).not.toContain(secret);
  });

  it('POST resetSecret → 200 {secret}, a new one; the old secret stops verifying; version raised', async () => {
    const pool = w.server.store.pool;
    const version = await getConfigVersion(pool, w.apiKey);
    const res = await w.call('POST', `${w.base}/~credentials/server/resetSecret`, w.owner);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['secret']);
    expect(res.json().secret).not.toBe(secret);
    expect(await verifyCredentialSecret(pool, w.apiKey, 'server', secret)).toBe(false);
    expect(await verifyCredentialSecret(pool, w.apiKey, 'server', res.json().secret)).toBe(true);
    expect(await getConfigVersion(pool, w.apiKey)).toBe(version + 1);
  });

  it('POST a name that exists → 409 CONFIG_DUPLICATE; a name with a space or a slash → 400 VALIDATION_FAILED', async () => {
    const dup = await w.call('POST', `${w.base}/~credentials`, w.owner, { name: 'server' });
    expect([dup.statusCode, dup.json().code]).toEqual([409, 'CONFIG_DUPLICATE']);
    for (const name of ['two words', 'a/b', '', 'x'.repeat(65)]) {
      const res = await w.call('POST', `${w.base}/~credentials`, w.owner, { name });
      expect([name, res.statusCode, res.json().code]).toEqual([name, 400, 'VALIDATION_FAILED']);
    }
  });

  it('a name like "constructor" is an ordinary name (no prototype lookup)', async () => {
    const res = await w.call('POST', `${w.base}/~credentials`, w.owner, { name: 'constructor' });
    expect(res.statusCode).toBe(201);
    expect(await w.ok('DELETE', `${w.base}/~credentials/constructor`)).toEqual({ message: 'SUCCESS' });
  });

  it('GET, DELETE, resetSecret of an unknown credential → 404 CREDENTIAL_NOT_FOUND', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/resetSecret'],
    ] as const) {
      const res = await w.call(method, `${w.base}/~credentials/nobody${suffix}`, w.owner);
      expect([method, res.statusCode, res.json().code]).toEqual([method, 404, 'CREDENTIAL_NOT_FOUND']);
    }
  });

  it('DELETE → SUCCESS; the credential no longer verifies', async () => {
    const created = await w.ok('POST', `${w.base}/~credentials`, { name: 'temp' });
    expect(await w.ok('DELETE', `${w.base}/~credentials/temp`)).toEqual({ message: 'SUCCESS' });
    expect(await verifyCredentialSecret(w.server.store.pool, w.apiKey, 'temp', created.secret)).toBe(false);
  });
});

describe('push credentials (no PLAYBASE_SECRET_KEY: a generated master key)', () => {
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await startConfigWorld();
  });
  afterAll(() => w.close());

  it('GET ~pushCredentials before any → {}', async () => {
    expect(await w.ok('GET', `${w.base}/~pushCredentials`)).toEqual({});
  });

  it('PUT apple and google → 200 with identifiers only; GET answers the same; no key is ever returned', async () => {
    const put = await w.call('PUT', `${w.base}/~pushCredentials`, w.owner, PUSH);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual(VIEW);
    const get = await w.call('GET', `${w.base}/~pushCredentials`, w.owner);
    expect(get.json()).toEqual(VIEW);
    expect(put.body + get.body).not.toContain('PRIVATE KEY');
  });

  it('stored sealed (pb1 format, no key text); a master key was generated once in server_secrets; it opens again', async () => {
    const pool = w.server.store.pool;
    const { rows } = await pool.query<{ sealed: string }>(
      'SELECT sealed FROM config_push_credentials WHERE api_key = $1',
      [w.apiKey],
    );
    expect(rows[0]?.sealed).toMatch(/^pb1\./);
    expect(rows[0]?.sealed).not.toContain('PRIVATE');
    const secrets = await pool.query<{ value: string }>(
      "SELECT value FROM server_secrets WHERE name = 'master-key'",
    );
    expect(secrets.rows).toHaveLength(1);
    const opened = openPushCredentials(
      rows[0]?.sealed as string,
      deriveKey(secrets.rows[0]?.value as string, 'push-credentials'),
      w.apiKey,
    );
    expect(opened.apple?.keyPem).toBe(ecKey);
    expect(await loadPushCredentials(pool, w.apiKey, undefined)).toEqual(opened);
  });

  it('PUT apple without keyId → 400 PUSH_CREDENTIALS_INVALID; an unknown provider key → 400 VALIDATION_FAILED; unchanged', async () => {
    const { keyId: _drop, ...apple } = PUSH.apple;
    const missing = await w.call('PUT', `${w.base}/~pushCredentials`, w.owner, { apple });
    expect([missing.statusCode, missing.json().code]).toEqual([400, 'PUSH_CREDENTIALS_INVALID']);
    const unknown = await w.call('PUT', `${w.base}/~pushCredentials`, w.owner, { huawei: {} });
    expect([unknown.statusCode, unknown.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await w.ok('GET', `${w.base}/~pushCredentials`)).toEqual(VIEW);
  });

  it('PUT {} → the credentials are removed', async () => {
    expect(await w.ok('PUT', `${w.base}/~pushCredentials`, {})).toEqual({});
    expect(await w.ok('GET', `${w.base}/~pushCredentials`)).toEqual({});
  });
});

describe('push credentials with PLAYBASE_SECRET_KEY', () => {
  const SECRET = 'a-very-secret-master-key-for-tests';
  let w: ConfigWorld;
  beforeAll(async () => {
    w = await startConfigWorld({ PLAYBASE_SECRET_KEY: SECRET });
  });
  afterAll(() => w.close());

  it('sealed under deriveKey(PLAYBASE_SECRET_KEY, "push-credentials"); no master key is generated', async () => {
    await w.ok('PUT', `${w.base}/~pushCredentials`, { apple: PUSH.apple });
    const pool = w.server.store.pool;
    const { rows } = await pool.query<{ sealed: string }>(
      'SELECT sealed FROM config_push_credentials WHERE api_key = $1',
      [w.apiKey],
    );
    const opened = openPushCredentials(
      rows[0]?.sealed as string,
      deriveKey(SECRET, 'push-credentials'),
      w.apiKey,
    );
    expect(opened.apple?.keyId).toBe('ABC123DEFG');
    expect((await pool.query('SELECT 1 FROM server_secrets')).rowCount).toBe(0);
  });
});

describe('PLAYBASE_SECRET_KEY setting', () => {
  it('unset → secretKey undefined; 16 characters or more → kept; shorter → SettingsError naming it', () => {
    expect(loadSettings({}).secretKey).toBeUndefined();
    expect(loadSettings({ PLAYBASE_SECRET_KEY: '0123456789abcdef' }).secretKey).toBe('0123456789abcdef');
    expect(() => loadSettings({ PLAYBASE_SECRET_KEY: 'short' })).toThrow(/PLAYBASE_SECRET_KEY/);
  });
});
