// Export settings (PLAYBASE_EXPORT_*), the stage base URL of download links, and the periodic purge runner.
import { describe, expect, it } from 'vitest';
import { stageBaseUrl } from '../../src/nosql/export-jobs.js';
import { startPeriodic } from '../../src/periodic.js';
import { loadSettings, SettingsError } from '../../src/settings.js';

describe('export settings', () => {
  it('defaults → the local store, us-east-1, path style off, prefix exports/', () => {
    expect(loadSettings({}).exports).toEqual({
      s3Bucket: undefined,
      s3Region: 'us-east-1',
      s3Endpoint: undefined,
      s3ForcePathStyle: false,
      s3Prefix: 'exports/',
      signingKey: undefined,
    });
  });

  it('every S3 variable is read', () => {
    const s = loadSettings({
      PLAYBASE_EXPORT_S3_BUCKET: 'b',
      PLAYBASE_EXPORT_S3_REGION: 'eu-west-3',
      PLAYBASE_EXPORT_S3_ENDPOINT: 'https://minio.example:9000',
      PLAYBASE_EXPORT_S3_FORCE_PATH_STYLE: 'true',
      PLAYBASE_EXPORT_S3_PREFIX: '',
      PLAYBASE_EXPORT_SIGNING_KEY: 'AB'.repeat(32),
    }).exports;
    expect(s).toEqual({
      s3Bucket: 'b',
      s3Region: 'eu-west-3',
      s3Endpoint: 'https://minio.example:9000',
      s3ForcePathStyle: true,
      s3Prefix: '',
      signingKey: 'ab'.repeat(32),
    });
  });

  const bad: [string, string][] = [
    ['PLAYBASE_EXPORT_S3_FORCE_PATH_STYLE', 'yes'],
    ['PLAYBASE_EXPORT_S3_ENDPOINT', 'ftp://x'],
    ['PLAYBASE_EXPORT_S3_PREFIX', 'no-slash'],
    ['PLAYBASE_EXPORT_S3_PREFIX', '../x/'],
    ['PLAYBASE_EXPORT_SIGNING_KEY', 'ab'.repeat(31)],
    ['PLAYBASE_EXPORT_SIGNING_KEY', 'zz'.repeat(32)],
  ];
  for (const [name, value] of bad) {
    it(`${name}=${value.slice(0, 20)} → SettingsError naming it`, () => {
      expect(() => loadSettings({ [name]: value })).toThrow(SettingsError);
      expect(() => loadSettings({ [name]: value })).toThrow(name);
    });
  }

  it('the stage base URL fills {apiKey} and {stage} of the local cluster template', () => {
    const s = loadSettings({ PUBLIC_URL: 'https://api.example.com' });
    expect(stageBaseUrl(s, 'g1', 'live')).toBe('https://api.example.com/live');
    s.clusters.local = {
      ...s.clusters.local!,
      previewNosql: 'https://{apiKey}.{stage}.cluster.example.com/',
    };
    expect(stageBaseUrl(s, 'g1', 'preview')).toBe('https://g1.preview.cluster.example.com');
  });
});

describe('startPeriodic', () => {
  const quiet = { info() {}, warn() {} } as never;

  it('runs the task every interval, never two at once, and stops when told', async () => {
    let runs = 0;
    let active = 0;
    let overlap = false;
    const stop = startPeriodic(
      't',
      10,
      async () => {
        runs += 1;
        active += 1;
        if (active > 1) overlap = true;
        await new Promise((r) => setTimeout(r, 35));
        active -= 1;
        return 0;
      },
      quiet,
    );
    await new Promise((r) => setTimeout(r, 200));
    stop();
    const seen = runs;
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(overlap).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toBe(seen);
  });

  it('a failing task is logged and the next tick runs again', async () => {
    const warnings: string[] = [];
    let runs = 0;
    const log = { info() {}, warn: (_o: unknown, msg: string) => warnings.push(msg) } as never;
    const stop = startPeriodic(
      'purge',
      10,
      async () => {
        runs += 1;
        throw new Error('boom');
      },
      log,
    );
    await new Promise((r) => setTimeout(r, 80));
    stop();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(warnings[0]).toBe('purge failed');
  });
});
