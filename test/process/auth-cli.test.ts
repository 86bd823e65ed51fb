// `playbase rotate-key` (npm run cli -- rotate-key): a new signing key in the store the settings name.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyRing } from '../../src/auth/keys.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { basic, storeKind, TEST_DATABASE_URL } from '../harness.js';
import { freePort, sharedPostgres, spawnPlaybase, waitReady } from '../processes.js';

const ADMIN = { username: 'cli-admin@playbase.test', password: 'cli-password-1' };

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const cli = (args: string[], env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/playbase.ts', ...args], env);

interface KeyRow {
  kid: string;
  retired_at: Date | null;
  retire_after: Date | null;
}

async function keysIn(store: Store): Promise<KeyRow[]> {
  const { rows } = await store.pool.query<KeyRow>(
    'SELECT kid, retired_at, retire_after FROM signing_keys ORDER BY created_at',
  );
  return rows;
}

/** The first key, as a server makes it on its first JWT. */
async function firstKey(store: Store): Promise<string> {
  await migrate(store.pool);
  return (await createKeyRing(store.pool, Date.now).current()).kid;
}

describe.skipIf(storeKind === 'postgres')('rotate-key on the embedded store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-cli-'));
  let oldKid: string;
  beforeAll(async () => {
    const store = await openStore({ dataDir, statementTimeoutMs: 10_000 });
    oldKid = await firstKey(store);
    await store.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('npm run cli -- rotate-key on a folder not in use → exit 0, the new kid on stdout; the old key retires', async () => {
    const started = Date.now();
    const ran = await run('npm', ['run', '--silent', 'cli', '--', 'rotate-key'], {
      PLAYBASE_DATA_DIR: dataDir,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const kid = ran.stdout.trim();
    expect(kid).toMatch(/^\d{4}-\d{2}-\d{2}-[0-9a-f]{12}$/);
    expect(ran.stderr).toContain(`New JWTs are signed with key ${kid}`);
    const store = await openStore({ dataDir, statementTimeoutMs: 10_000 });
    try {
      const [old, current] = (await keysIn(store)) as [KeyRow, KeyRow];
      expect([old.kid, current.kid, current.retired_at]).toEqual([oldKid, kid, null]);
      // The old key stays published 65 minutes: every token it signed (1 hour at most) expires first.
      const published = (old.retire_after?.getTime() ?? 0) - (old.retired_at?.getTime() ?? 0);
      expect(published).toBe(65 * 60_000);
      expect(old.retired_at?.getTime()).toBeGreaterThanOrEqual(started - 1000);
    } finally {
      await store.close();
    }
  });

  it('a server started on the folder afterwards → new JWTs carry the new kid; the JWKS holds both', async () => {
    const ran = await cli(['rotate-key'], { PLAYBASE_DATA_DIR: dataDir });
    const kid = ran.stdout.trim();
    const server = spawnPlaybase({
      PORT: String(await freePort()),
      PLAYBASE_DATA_DIR: dataDir,
      PLAYBASE_ADMIN_USERNAME: ADMIN.username,
      PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    });
    try {
      await waitReady(server.url, 30_000);
      // While the server holds the folder the command cannot open it: a clear message, exit 1.
      const locked = await cli(['rotate-key'], { PLAYBASE_DATA_DIR: dataDir });
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain(`The data folder ${dataDir} is in use by another Playbase process`);
      expect(locked.stderr).toContain('POST /restv2/auth/keys/rotate');

      const jwks = (await (await fetch(`${server.url}/restv2/auth/.well-known/jwks.json`)).json()) as {
        keys: { kid: string }[];
      };
      expect(jwks.keys.map((k) => k.kid)).toContain(kid);
      expect(jwks.keys.map((k) => k.kid)).toContain(oldKid);
      const login = await fetch(`${server.url}/restv2/auth/user`, {
        headers: { authorization: basic(ADMIN.username, ADMIN.password) },
      });
      const token = ((await login.json()) as Record<string, string>)['X-SVCAccessToken'] as string;
      const game = (await (
        await fetch(`${server.url}/restv2/games`, {
          method: 'POST',
          headers: { 'x-svcaccesstoken': token, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'cli' }),
        })
      ).json()) as { apiKey: string };
      const issued = (await (
        await fetch(`${server.url}/restv2/auth/game/${game.apiKey}/jwt`, {
          headers: { 'x-svcaccesstoken': token },
        })
      ).json()) as Record<string, string>;
      const header = JSON.parse(
        Buffer.from((issued['X-SVC-JWT'] as string).split('.')[0] as string, 'base64url').toString(),
      );
      expect(header.kid).toBe(kid);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('no command → usage on stdout, exit 0; unknown command → usage on stderr, exit 2', async () => {
    const help = await cli([], { PLAYBASE_DATA_DIR: dataDir });
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('rotate-key')]);
    const unknown = await cli(['rotate-everything'], { PLAYBASE_DATA_DIR: dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'rotate-everything'");
  });
});

describe.skipIf(!TEST_DATABASE_URL)('rotate-key on PostgreSQL', () => {
  it('DATABASE_URL → rotates in that database; the printed kid is the one active key', async () => {
    const db = await sharedPostgres(TEST_DATABASE_URL as string);
    const store = await openStore({ databaseUrl: db.url, dataDir: '', statementTimeoutMs: 10_000 });
    try {
      const oldKid = await firstKey(store);
      const ran = await cli(['rotate-key'], { DATABASE_URL: db.url });
      expect(ran.code, ran.stderr).toBe(0);
      const rows = await keysIn(store);
      expect(rows.map((r) => [r.kid, r.retired_at === null])).toEqual([
        [oldKid, false],
        [ran.stdout.trim(), true],
      ]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
