// `playbase backup FILE` and `playbase restore FILE` as an operator runs them, against servers run as processes:
// the restored store serves the same accounts and games; the refusals exit 1 with what to do.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, storeKind, TEST_DATABASE_URL } from '../harness.js';
import { freePort, type Running, spawnPlaybase, stopAll, waitReady } from '../processes.js';

const ADMIN = { username: 'backup-admin@playbase.test', password: 'backup-password-1' };

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/playbase.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

async function serve(env: Record<string, string>): Promise<Running> {
  const server = spawnPlaybase({
    PORT: String(await freePort()),
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    ...env,
  });
  await waitReady(server.url, 60_000);
  return server;
}

/** The administrator's games, by name, as the server lists them. */
async function gamesOf(server: Running): Promise<string[]> {
  const auth = { authorization: basic(ADMIN.username, ADMIN.password) };
  const token = (
    (await (await fetch(`${server.url}/restv2/auth/user`, { headers: auth })).json()) as Record<
      string,
      string
    >
  )['X-SVCAccessToken'] as string;
  const games = (await (
    await fetch(`${server.url}/restv2/games`, { headers: { 'x-svcaccesstoken': token } })
  ).json()) as {
    name: string;
  }[];
  return games.map((g) => g.name).sort();
}

async function createGame(server: Running, name: string): Promise<void> {
  const res = await fetch(`${server.url}/restv2/games`, {
    method: 'POST',
    headers: { authorization: basic(ADMIN.username, ADMIN.password), 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(201);
}

const work = mkdtempSync(join(tmpdir(), 'playbase-backup-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(storeKind === 'postgres')('backup and restore of the embedded store', () => {
  it('refused while the server runs (exit 1); with it stopped, restored into a new folder that a server then serves', async () => {
    const source = join(work, 'source');
    const file = join(work, 'embedded.tar.gz');
    const first = await serve({ PLAYBASE_DATA_DIR: source });
    try {
      await createGame(first, 'kept through the backup');
      const refused = await cli(['backup', file], { PLAYBASE_DATA_DIR: source });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `the data folder ${source} is in use by a running Playbase process (pid ${first.child.pid})`,
      );
      expect(existsSync(file)).toBe(false);
    } finally {
      await stopAll([first]);
    }
    const backup = await cli(['backup', file], { PLAYBASE_DATA_DIR: source });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toContain(`Backed up the embedded store into ${file}`);
    const target = join(work, 'target');
    const restore = await cli(['restore', file], { PLAYBASE_DATA_DIR: target });
    expect(restore.code, restore.stderr).toBe(0);
    const again = await cli(['restore', file], { PLAYBASE_DATA_DIR: target });
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('pass --force to replace it')]);
    const second = await serve({ PLAYBASE_DATA_DIR: target });
    try {
      expect(await gamesOf(second)).toEqual(['kept through the backup']);
    } finally {
      await stopAll([second]);
    }
  });

  it('a missing FILE, an extra argument or an unknown option → a usage error naming it, exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['backup'], "missing required argument 'file'"],
      [['restore', 'a', 'b'], 'too many arguments'],
      [['backup', '--quick'], "unknown option '--quick'"],
    ];
    for (const [args, why] of cases) {
      const ran = await cli(args, { PLAYBASE_DATA_DIR: join(work, 'unused') });
      expect(ran.code, args.join(' ')).toBe(2);
      expect(ran.stderr).toContain(why);
      expect(ran.stderr).toContain('playbase --help');
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('backup and restore on PostgreSQL', () => {
  const names = [`cli_src_${randomBytes(5).toString('hex')}`, `cli_dst_${randomBytes(5).toString('hex')}`];
  const urlOf = (db: string) => {
    const u = new URL(TEST_DATABASE_URL as string);
    u.pathname = `/${db}`;
    return u.toString();
  };
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  afterAll(async () => {
    for (const db of names) await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  });

  it('pg_dump while the server runs; pg_restore into an empty database that a server then serves; a full one refused', async () => {
    for (const db of names) await admin(`CREATE DATABASE ${db}`);
    const [from, to] = names.map(urlOf) as [string, string];
    const file = join(work, 'store.pgdump');
    const first = await serve({ DATABASE_URL: from, PLAYBASE_DATA_DIR: join(work, 'pg-first') });
    try {
      await createGame(first, 'kept through pg_dump');
      const backup = await cli(['backup', file], { DATABASE_URL: from });
      expect(backup.code, backup.stderr).toBe(0);
      expect(statSync(file).size).toBeGreaterThan(0);
    } finally {
      await stopAll([first]);
    }
    const restore = await cli(['restore', file], { DATABASE_URL: to });
    expect(restore.code, restore.stderr).toBe(0);
    const again = await cli(['restore', file], { DATABASE_URL: to });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/holds \d+ tables already/);
    const second = await serve({ DATABASE_URL: to, PLAYBASE_DATA_DIR: join(work, 'pg-second') });
    try {
      expect(await gamesOf(second)).toEqual(['kept through pg_dump']);
    } finally {
      await stopAll([second]);
    }
  });
});
