import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/settings.js';

function failure(env: Record<string, string>): SettingsError {
  try {
    loadSettings(env, '/srv');
  } catch (e) {
    if (e instanceof SettingsError) return e;
    throw e;
  }
  throw new Error('expected a SettingsError');
}

describe('settings', () => {
  it('empty environment → documented defaults', () => {
    const s = loadSettings({}, '/srv');
    expect(s.port).toBe(8080);
    expect(s.host).toBe('127.0.0.1');
    expect(s.publicUrl).toBe('http://127.0.0.1:8080');
    expect(s.dataDir).toBe('/srv/.playbase');
    expect(s.databaseUrl).toBeUndefined();
    expect(s.redisUrl).toBeUndefined();
    expect(s.roles).toEqual(['auth', 'config', 'nosql']);
    expect(s.databasePoolSize).toBe(10);
    expect(s.databaseConnectTimeoutMs).toBe(10_000);
    expect(s.tokenPurgeIntervalMs).toBe(600_000);
    expect(s.clusters.local).toEqual({
      liveNosql: 'http://127.0.0.1:8080/live',
      previewNosql: 'http://127.0.0.1:8080/preview',
      liveElasticSearch: null,
      previewElasticSearch: null,
      internalUrl: null,
    });
    expect(s.limits).toMatchObject({
      perUserPerMinute: 300,
      perGamePerMinute: 600,
      concurrentConfigWrites: 10,
      dataPerGamePerSecond: 1000,
    });
    expect(s.http).toEqual({
      trustProxy: false,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 10_000,
      connectionTimeoutMs: 900_000,
    });
  });

  it('LOG_FORMAT unset → readable lines on a terminal, JSON otherwise; set → used either way', () => {
    expect(loadSettings({}, '/srv', true).logFormat).toBe('pretty');
    expect(loadSettings({}, '/srv', false).logFormat).toBe('json');
    expect(loadSettings({ LOG_FORMAT: 'json' }, '/srv', true).logFormat).toBe('json');
    expect(loadSettings({ LOG_FORMAT: 'pretty' }, '/srv', false).logFormat).toBe('pretty');
  });

  it('TLS files set → public URL derived as https', () => {
    const s = loadSettings({ TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem', PORT: '8443' }, '/srv');
    expect(s.publicUrl).toBe('https://127.0.0.1:8443');
  });

  it('PUBLIC_URL set → used as is without a trailing slash', () => {
    expect(loadSettings({ PUBLIC_URL: 'https://games.example.com/' }).publicUrl).toBe(
      'https://games.example.com',
    );
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ TLS_CERT_FILE: '/c.pem' }, 'TLS_KEY_FILE'],
    [{ TLS_KEY_FILE: '/k.pem' }, 'TLS_CERT_FILE'],
    [{ PLAYBASE_ROLES: 'auth,billing' }, 'PLAYBASE_ROLES'],
    [{ PLAYBASE_ADMIN_USERNAME: 'admin' }, 'PLAYBASE_ADMIN_USERNAME'],
    [{ PLAYBASE_ADMIN_PASSWORD: 'short' }, 'PLAYBASE_ADMIN_PASSWORD'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ PLAYBASE_CLUSTERS: '{bad' }, 'PLAYBASE_CLUSTERS'],
    [{ PLAYBASE_DEFAULT_CLUSTER: 'eu' }, 'PLAYBASE_DEFAULT_CLUSTER'],
    [
      { PLAYBASE_CLUSTERS: '{"a":{"liveNosql":"x","previewNosql":"y","internalUrl":"ftp://a"}}' },
      'PLAYBASE_CLUSTERS',
    ],
    [
      { PLAYBASE_CLUSTERS: '{"a":{"liveNosql":"x","previewNosql":"y","internalUrl":7}}' },
      'PLAYBASE_CLUSTERS',
    ],
    [{ PLAYBASE_DEFAULT_CLUSTER: 'constructor' }, 'PLAYBASE_DEFAULT_CLUSTER'],
    [
      { PLAYBASE_HTTP_HEADERS_TIMEOUT_MS: '5000', PLAYBASE_HTTP_REQUEST_TIMEOUT_MS: '1000' },
      'PLAYBASE_HTTP_HEADERS_TIMEOUT_MS',
    ],
    [{ PLAYBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS: '0' }, 'PLAYBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [{ PLAYBASE_LIMIT_USER_PER_MINUTE: '1.5' }, 'PLAYBASE_LIMIT_USER_PER_MINUTE'],
    [{ PLAYBASE_LIMIT_SLOT_TTL_MS: '0' }, 'PLAYBASE_LIMIT_SLOT_TTL_MS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'text' }, 'LOG_FORMAT'],
    [{ LOG_FORMAT: 'JSON' }, 'LOG_FORMAT'],
    [{ PLAYBASE_DATABASE_POOL_SIZE: '0' }, 'PLAYBASE_DATABASE_POOL_SIZE'],
    [{ PLAYBASE_TOKEN_PURGE_INTERVAL_MS: '0' }, 'PLAYBASE_TOKEN_PURGE_INTERVAL_MS'],
  ])('bad value %j → error naming %s', (env, variable) => {
    const e = failure(env as Record<string, string>);
    expect(e.variable).toBe(variable);
    expect(e.message).toContain(variable);
  });

  it('PLAYBASE_TRUST_PROXY: a hop count or the proxies\' addresses; "true" and malformed entries refused', () => {
    const trust = (value: string) => loadSettings({ PLAYBASE_TRUST_PROXY: value }, '/srv').http.trustProxy;
    expect(trust('')).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.0/8, 192.168.1.7,loopback, fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'loopback',
      'fd00::/8',
    ]);
    expect(failure({ PLAYBASE_TRUST_PROXY: 'true' }).message).toMatch(/number of proxies/);
    expect(failure({ PLAYBASE_TRUST_PROXY: '0' }).message).toMatch(/between 1 and 10/);
    expect(failure({ PLAYBASE_TRUST_PROXY: '10.0.0.0/33' }).message).toMatch(
      /"10.0.0.0\/33" is not an address/,
    );
    expect(failure({ PLAYBASE_TRUST_PROXY: 'proxy.internal' }).message).toMatch(/is not an address/);
  });

  it('PLAYBASE_ROLES=nosql → that role only', () => {
    expect(loadSettings({ PLAYBASE_ROLES: 'nosql' }).roles).toEqual(['nosql']);
  });

  it('PLAYBASE_CLUSTERS adds clusters with {apiKey}/{stage} templates and keeps local', () => {
    const s = loadSettings({
      PLAYBASE_CLUSTERS: JSON.stringify({
        eu: {
          liveNosql: 'https://{apiKey}.{stage}.eu.example.com',
          previewNosql: 'https://{apiKey}.{stage}.eu.example.com',
          internalUrl: 'http://10.0.0.7:8080/',
        },
      }),
    });
    // The cluster's private address, where the control side reads Preview meta collections.
    expect(s.clusters.eu?.internalUrl).toBe('http://10.0.0.7:8080');
    expect(s.clusters.local?.internalUrl).toBeNull();
    expect(Object.keys(s.clusters).sort()).toEqual(['eu', 'local']);
    expect(s.clusters.eu?.liveElasticSearch).toBeNull();
    expect(s.defaultCluster).toBe('local');
  });

  it('PLAYBASE_DEFAULT_CLUSTER names a cluster of PLAYBASE_CLUSTERS → new games go there', () => {
    const eu = { liveNosql: 'https://eu.example.com/live', previewNosql: 'https://eu.example.com/preview' };
    const s = loadSettings({ PLAYBASE_CLUSTERS: JSON.stringify({ eu }), PLAYBASE_DEFAULT_CLUSTER: 'eu' });
    expect(s.defaultCluster).toBe('eu');
  });

  it('PLAYBASE_CLUSTER: a nosql-only replica of a known cluster, with a 32+ character secret; config URL defaults to the auth URL', () => {
    const secret = 's'.repeat(32);
    const s = loadSettings({
      PLAYBASE_ROLES: 'nosql',
      PLAYBASE_CLUSTER: 'local',
      PLAYBASE_CLUSTER_SECRET: secret,
      PLAYBASE_AUTH_URL: 'http://auth.example:9000/',
    });
    expect(s.replica).toEqual({ cluster: 'local', configUrl: 'http://auth.example:9000', secret });
    const url = { PLAYBASE_CONFIG_URL: 'https://config.example/' };
    expect(loadSettings(url).replica).toEqual({
      cluster: undefined,
      configUrl: 'https://config.example',
      secret: undefined,
    });
    const replica = { PLAYBASE_ROLES: 'nosql', PLAYBASE_CLUSTER: 'local', PLAYBASE_CLUSTER_SECRET: secret };
    expect(failure({ ...replica, PLAYBASE_CLUSTER: 'mars' }).variable).toBe('PLAYBASE_CLUSTER');
    expect(failure({ ...replica, PLAYBASE_ROLES: 'nosql,config' }).variable).toBe('PLAYBASE_CLUSTER');
    expect(failure({ ...replica, PLAYBASE_CLUSTER_SECRET: '' }).variable).toBe('PLAYBASE_CLUSTER_SECRET');
    expect(failure({ PLAYBASE_CLUSTER_SECRET: 'short' }).variable).toBe('PLAYBASE_CLUSTER_SECRET');
    expect(failure({ PLAYBASE_CONFIG_URL: 'ftp://x' }).variable).toBe('PLAYBASE_CONFIG_URL');
  });
});
