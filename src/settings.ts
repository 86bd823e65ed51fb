// Settings: read once from the environment at start, validated, then passed down as a typed object.
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { readConsoleOrigins } from './settings-console.js';
import { readInt, SettingsError } from './settings-error.js';
import { type HttpSettings, readHttp } from './settings-http.js';
import { type ReplicaSettings, readInternalUrl, readReplica } from './settings-replica.js';

const ALL_ROLES = ['auth', 'config', 'nosql'] as const;
export type Role = (typeof ALL_ROLES)[number];

export interface ClusterSettings {
  /** URL templates; may hold {apiKey} and {stage} (`live` / `preview`). */
  liveNosql: string;
  previewNosql: string;
  liveElasticSearch: string | null;
  previewElasticSearch: string | null;
  /**
   * A runtime cluster's private address (its nosql processes run with PLAYBASE_CLUSTER on their own database):
   * the control side reads a game's Preview meta collections there (docs/topology.md). null: the cluster's
   * documents are in this process's database (all-in-one, shared split).
   */
  internalUrl: string | null;
}

export interface Settings {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** PLAYBASE_SECRET_KEY: master key for sealed secrets (push credentials); unset → one generated in the database. */
  secretKey: string | undefined;
  /** PLAYBASE_METRICS_TOKEN: GET /metrics then needs it as a bearer token; unset → loopback clients only. */
  metricsToken: string | undefined;
  /** PLAYBASE_CONSOLE_ORIGINS: origins whose console may call the nosql role (CORS); empty → same origin only. */
  consoleOrigins: string[];
  /** Prefix of every Redis key: processes sharing one Redis for different deployments (or tests) stay apart. */
  redisKeyPrefix: string;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  adminUsername: string;
  adminPassword: string | undefined;
  roles: Role[];
  /** Where a config or nosql server asks the auth server to check access tokens (split mode). */
  authUrl: string;
  clusters: Record<string, ClusterSettings>;
  /** The cluster a game is created on when its creation names none (PLAYBASE_DEFAULT_CLUSTER, else local). */
  defaultCluster: string;
  /** A runtime cluster's replica and the feed it reads (docs/topology.md; src/settings-replica.ts). */
  replica: ReplicaSettings;
  logLevel: string;
  /** LOG_FORMAT: readable lines (pino-pretty) or JSON; unset → readable when standard output is a terminal. */
  logFormat: LogFormat;
  shutdownGraceMs: number;
  statementTimeoutMs: number;
  /** Compute threads for large inputs (compute/); 0 runs everything on the event loop. */
  computeThreads: number;
  /** Cloud Code: the time budget and memory cap of one script execution, and the sandbox threads. */
  scripts: { timeLimitMs: number; memoryMb: number; threads: number };
  /** Cloud Code timers: how often this process checks for due system-script ticks, publishes and jobs; 0: never. */
  scriptTimers: { checkMs: number };
  /** Days the script log (each stage's `script.log`) keeps its entries; 0 keeps them forever. */
  scriptLogRetentionDays: number;
  /** Connections of the PostgreSQL pool (PGlite has one). */
  databasePoolSize: number;
  /** Longest wait for a PostgreSQL connection (connecting, or a free one of the pool) before 503 NOT_READY. */
  databaseConnectTimeoutMs: number;
  /** How often the auth role deletes the rows of expired access tokens (they are refused from their expiry on). */
  tokenPurgeIntervalMs: number;
  limits: {
    perUserPerMinute: number;
    perGamePerMinute: number;
    concurrentConfigWrites: number;
    runtimePerGamePerSecond: number;
    /** Data service (key-value) calls a second per game (prior art: 1000). */
    dataPerGamePerSecond: number;
    slotTtlMs: number;
    loginFailuresPerAccount: number;
    loginFailuresPerAddress: number;
  };
  /** Connection timeouts (ms) of the HTTP server, and the proxies trusted for the client's address. */
  http: HttpSettings;
  /** Push notification providers (https origins), and an extra CA file trusted for them (tests, private proxies). */
  push: {
    apnsProductionUrl: string;
    apnsDevelopmentUrl: string;
    fcmUrl: string;
    fcmTokenUrl: string;
    caFile: string | undefined;
  };
  /** Export store: S3-compatible storage when s3Bucket is set, else `<dataDir>/exports` with HMAC-signed links. */
  exports: {
    s3Bucket: string | undefined;
    s3Region: string;
    s3Endpoint: string | undefined;
    s3ForcePathStyle: boolean;
    s3Prefix: string;
    /** Hex HMAC key of the local store's links (32+ bytes); unset → one kept in `<dataDir>/exports/.signing-key`. */
    signingKey: string | undefined;
  };
  /** The mongo and data imports (POST .../mongo/import, .../data/import); see readImports. */
  imports: {
    maxBytes: number;
    requestTimeoutMs: number;
  };
}

const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export { SettingsError };

type Env = Record<string, string | undefined>;

function readUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new SettingsError(name, `must use ${protocols.join(' or ')}, got ${url.protocol}`);
  }
  return raw;
}

function readRoles(env: Env): Role[] {
  const raw = env.PLAYBASE_ROLES;
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return [...ALL_ROLES];
  const roles = raw.split(',').map((r) => r.trim());
  for (const role of roles) {
    if (!(ALL_ROLES as readonly string[]).includes(role)) {
      throw new SettingsError(
        'PLAYBASE_ROLES',
        `unknown role "${role}" (expected ${ALL_ROLES.join(', ')} or all)`,
      );
    }
  }
  return [...new Set(roles)] as Role[];
}

function readClusters(env: Env, publicUrl: string): Record<string, ClusterSettings> {
  const local: ClusterSettings = {
    liveNosql: `${publicUrl}/live`,
    previewNosql: `${publicUrl}/preview`,
    liveElasticSearch: env.PLAYBASE_LOCAL_LIVE_SEARCH_URL || null,
    previewElasticSearch: env.PLAYBASE_LOCAL_PREVIEW_SEARCH_URL || null,
    internalUrl: null,
  };
  const raw = env.PLAYBASE_CLUSTERS;
  if (raw === undefined || raw === '') return { local };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SettingsError('PLAYBASE_CLUSTERS', 'is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SettingsError(
      'PLAYBASE_CLUSTERS',
      'must be a JSON object {name: {liveNosql, previewNosql, ...}}',
    );
  }
  const clusters: Record<string, ClusterSettings> = { local };
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    const c = value as Partial<ClusterSettings> | null;
    if (!c || typeof c.liveNosql !== 'string' || typeof c.previewNosql !== 'string') {
      throw new SettingsError(
        'PLAYBASE_CLUSTERS',
        `cluster "${name}" needs liveNosql and previewNosql strings`,
      );
    }
    clusters[name] = {
      liveNosql: c.liveNosql,
      previewNosql: c.previewNosql,
      liveElasticSearch: typeof c.liveElasticSearch === 'string' ? c.liveElasticSearch : null,
      previewElasticSearch: typeof c.previewElasticSearch === 'string' ? c.previewElasticSearch : null,
      internalUrl: readInternalUrl(name, (c as { internalUrl?: unknown }).internalUrl),
    };
  }
  return clusters;
}

function readDefaultCluster(env: Env, clusters: Record<string, ClusterSettings>): string {
  const name = env.PLAYBASE_DEFAULT_CLUSTER?.trim() || 'local';
  if (!Object.hasOwn(clusters, name)) {
    throw new SettingsError(
      'PLAYBASE_DEFAULT_CLUSTER',
      `names no cluster of PLAYBASE_CLUSTERS (${Object.keys(clusters).join(', ')})`,
    );
  }
  return name;
}

function readLogFormat(env: Env, terminal: boolean): LogFormat {
  const raw = env.LOG_FORMAT?.trim() ?? '';
  if (raw === '') return terminal ? 'pretty' : 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(raw))
    throw new SettingsError('LOG_FORMAT', `expected ${LOG_FORMATS.join(' or ')}, got "${raw}"`);
  return raw as LogFormat;
}

function readSecretKey(env: Env): string | undefined {
  const raw = env.PLAYBASE_SECRET_KEY;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16) throw new SettingsError('PLAYBASE_SECRET_KEY', 'must be at least 16 characters');
  return raw;
}

function readMetricsToken(env: Env): string | undefined {
  const raw = env.PLAYBASE_METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  // RFC 6750's token characters, so that it travels as `Authorization: Bearer <token>` unchanged.
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(raw))
    throw new SettingsError('PLAYBASE_METRICS_TOKEN', 'may hold only letters, digits and -._~+/ (then =)');
  if (raw.length < 16) throw new SettingsError('PLAYBASE_METRICS_TOKEN', 'must be at least 16 characters');
  return raw;
}

function readPush(env: Env): Settings['push'] {
  const url = (name: string, fallback: string) => readUrl(env, name, ['https:']) ?? fallback;
  return {
    apnsProductionUrl: url('PLAYBASE_APNS_PRODUCTION_URL', 'https://api.push.apple.com'),
    apnsDevelopmentUrl: url('PLAYBASE_APNS_DEVELOPMENT_URL', 'https://api.sandbox.push.apple.com'),
    fcmUrl: url('PLAYBASE_FCM_URL', 'https://fcm.googleapis.com'),
    fcmTokenUrl: url('PLAYBASE_FCM_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    caFile: env.PLAYBASE_PUSH_CA_FILE?.trim() || undefined,
  };
}

function readExports(env: Env): Settings['exports'] {
  const flag = env.PLAYBASE_EXPORT_S3_FORCE_PATH_STYLE?.trim() ?? '';
  if (!['', 'true', 'false', '1', '0'].includes(flag))
    throw new SettingsError('PLAYBASE_EXPORT_S3_FORCE_PATH_STYLE', 'must be true or false');
  const prefix = env.PLAYBASE_EXPORT_S3_PREFIX ?? 'exports/';
  const dotSegment = prefix.split('/').some((part) => part === '.' || part === '..');
  if (prefix !== '' && (dotSegment || !/^[A-Za-z0-9!_.*'()-]+(?:\/[A-Za-z0-9!_.*'()-]+)*\/$/.test(prefix)))
    throw new SettingsError('PLAYBASE_EXPORT_S3_PREFIX', "must be '' or key segments ending in '/'");
  const key = env.PLAYBASE_EXPORT_SIGNING_KEY?.trim() || undefined;
  if (key !== undefined && !/^(?:[0-9a-fA-F]{2}){32,}$/.test(key))
    throw new SettingsError('PLAYBASE_EXPORT_SIGNING_KEY', 'must be hex of at least 32 bytes');
  return {
    s3Bucket: env.PLAYBASE_EXPORT_S3_BUCKET?.trim() || undefined,
    s3Region: env.PLAYBASE_EXPORT_S3_REGION?.trim() || 'us-east-1',
    s3Endpoint: readUrl(env, 'PLAYBASE_EXPORT_S3_ENDPOINT', ['http:', 'https:']),
    s3ForcePathStyle: flag === 'true' || flag === '1',
    s3Prefix: prefix,
    signingKey: key?.toLowerCase(),
  };
}

/**
 * Imports take files far past the 4 MB body limit. Their upload is bounded by its own receiving time instead of
 * PLAYBASE_HTTP_REQUEST_TIMEOUT_MS: the server reads the body only as fast as it writes it into the store, so
 * that time includes the writing (a million small documents take about 20 s, bench exports), and a big file on
 * a slow link takes longer still. 1 GB at an hour is about 300 KB/s.
 */
function readImports(env: Env): Settings['imports'] {
  return {
    maxBytes: readInt(env, 'PLAYBASE_IMPORT_MAX_BYTES', 1024 ** 3, 1, 2 ** 50),
    requestTimeoutMs: readInt(env, 'PLAYBASE_IMPORT_REQUEST_TIMEOUT_MS', 3_600_000, 1000, 86_400_000),
  };
}

/**
 * Reads and validates every setting; throws SettingsError naming the variable on the first bad one. `terminal`
 * tells whether standard output is a terminal (the default log format depends on it).
 */
export function loadSettings(
  env: Env = process.env,
  cwd = process.cwd(),
  terminal = process.stdout.isTTY === true,
): Settings {
  const port = readInt(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST?.trim() || '127.0.0.1';
  const tlsCertFile = env.TLS_CERT_FILE || undefined;
  const tlsKeyFile = env.TLS_KEY_FILE || undefined;
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) {
    throw new SettingsError(
      tlsCertFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE',
      'TLS_CERT_FILE and TLS_KEY_FILE must be set together',
    );
  }
  const scheme = tlsCertFile ? 'https' : 'http';
  const displayHost =
    host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const publicUrl = (
    readUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `${scheme}://${displayHost}:${port}`
  ).replace(/\/+$/, '');
  const dataDirRaw = env.PLAYBASE_DATA_DIR?.trim() || './.playbase';
  const adminUsername = env.PLAYBASE_ADMIN_USERNAME?.trim() || 'admin@playbase.local';
  if (!/^[^\s@]+@[^\s@]+$/.test(adminUsername)) {
    throw new SettingsError('PLAYBASE_ADMIN_USERNAME', 'must be an e-mail address');
  }
  const adminPassword = env.PLAYBASE_ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && adminPassword.length < 8) {
    throw new SettingsError('PLAYBASE_ADMIN_PASSWORD', 'must be at least 8 characters');
  }
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new SettingsError('LOG_LEVEL', `unknown level "${logLevel}"`);
  }
  const clusters = readClusters(env, publicUrl);
  const authUrl = (readUrl(env, 'PLAYBASE_AUTH_URL', ['http:', 'https:']) ?? publicUrl).replace(/\/+$/, '');
  const roles = readRoles(env);
  return {
    port,
    host,
    publicUrl,
    dataDir: isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw),
    databaseUrl: readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    secretKey: readSecretKey(env),
    metricsToken: readMetricsToken(env),
    consoleOrigins: readConsoleOrigins(env),
    redisKeyPrefix: env.PLAYBASE_REDIS_KEY_PREFIX?.trim() || 'playbase',
    tlsCertFile,
    tlsKeyFile,
    adminUsername,
    adminPassword,
    roles,
    authUrl,
    clusters,
    defaultCluster: readDefaultCluster(env, clusters),
    replica: readReplica(
      env,
      roles,
      clusters,
      readUrl(env, 'PLAYBASE_CONFIG_URL', ['http:', 'https:']) ?? authUrl,
    ),
    logLevel,
    logFormat: readLogFormat(env, terminal),
    shutdownGraceMs: readInt(env, 'PLAYBASE_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    statementTimeoutMs: readInt(env, 'PLAYBASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    // One per core but one (the event loop's), at least two so one long task never queues the next.
    computeThreads: readInt(
      env,
      'PLAYBASE_COMPUTE_THREADS',
      Math.min(4, Math.max(2, availableParallelism() - 1)),
      0,
      64,
    ),
    scripts: {
      timeLimitMs: readInt(env, 'PLAYBASE_SCRIPT_TIME_LIMIT_MS', 2000, 10, 600_000),
      memoryMb: readInt(env, 'PLAYBASE_SCRIPT_MEMORY_MB', 64, 8, 4096),
      threads: readInt(env, 'PLAYBASE_SCRIPT_THREADS', 4, 1, 64),
    },
    scriptTimers: { checkMs: readInt(env, 'PLAYBASE_SCRIPT_TIMER_CHECK_MS', 1000, 0, 60_000) },
    scriptLogRetentionDays: readInt(env, 'PLAYBASE_SCRIPT_LOG_RETENTION_DAYS', 30, 0, 36_500),
    databasePoolSize: readInt(env, 'PLAYBASE_DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseConnectTimeoutMs: readInt(env, 'PLAYBASE_DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    tokenPurgeIntervalMs: readInt(env, 'PLAYBASE_TOKEN_PURGE_INTERVAL_MS', 600_000, 10, 86_400_000),
    limits: {
      // 0 turns a limit off (benchmarks); the defaults are the spec's values.
      perUserPerMinute: readInt(env, 'PLAYBASE_LIMIT_USER_PER_MINUTE', 300, 0, 10_000_000),
      perGamePerMinute: readInt(env, 'PLAYBASE_LIMIT_GAME_PER_MINUTE', 600, 0, 10_000_000),
      concurrentConfigWrites: readInt(env, 'PLAYBASE_LIMIT_CONFIG_CONCURRENT', 10, 0, 100_000),
      runtimePerGamePerSecond: readInt(env, 'PLAYBASE_LIMIT_RUNTIME_PER_SECOND', 1000, 0, 10_000_000),
      dataPerGamePerSecond: readInt(env, 'PLAYBASE_LIMIT_DATA_PER_SECOND', 1000, 0, 10_000_000),
      slotTtlMs: readInt(env, 'PLAYBASE_LIMIT_SLOT_TTL_MS', 5000, 100, 600_000),
      loginFailuresPerAccount: readInt(env, 'PLAYBASE_LOGIN_FAILURES_PER_ACCOUNT', 5, 1, 1000),
      loginFailuresPerAddress: readInt(env, 'PLAYBASE_LOGIN_FAILURES_PER_ADDRESS', 20, 1, 100_000),
    },
    http: readHttp(env),
    push: readPush(env),
    exports: readExports(env),
    imports: readImports(env),
  };
}
