// The `playbase` CLI driven as a user drives it: a separate process with its own HOME and config directory,
// against a real server (in this process), its output read as a person and as a script would.
//
// The journey (login, config pull, edit, push, snapshot create and publish, export, import) spawns the CLI, seven
// starts of about a second each; the other commands run in this process through runCli, with the same environment.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { createPlaybaseClient, unwrap } from '../../src/client/index.js';
import { ADMIN, startTestServer, type TestServer } from '../harness.js';
import { freePort } from '../processes.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let home: string;
let env: Record<string, string>;
let apiKey: string;
/** The second game, that the export is imported into. */
let importKey: string;
const outputs: string[] = [];

/** The CLI as a process: `node --import tsx src/cli/playbase.ts ...args`, no terminal. */
function cli(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/playbase.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
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
    child.on('exit', (code) => {
      outputs.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI in this process (same code, same environment unless given): for the checks beyond the journey. */
async function inProcess(args: string[], runEnv: Record<string, string> = env): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(args, {
    env: runEnv,
    stdin: new PassThrough(),
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
  });
  outputs.push(stdout, stderr);
  return { code, stdout, stderr };
}

const json = <T>(ran: Ran): T => JSON.parse(ran.stdout) as T;
const admin = () =>
  createPlaybaseClient({ baseUrl: server.url, username: ADMIN.username, password: ADMIN.password });
const exported = () => join(home, 'export.ndjson.gz');

/** How many documents of `collection` a stage of a game holds, asked through the API. */
async function countOf(game: string, stage: 'live' | 'preview', collection: string): Promise<number> {
  const client = await admin().stage(game, stage);
  const answer = await unwrap(
    client.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/count', {
      params: { path: { gameApiKey: game, collectionName: collection } },
      body: {},
    }),
  );
  return answer.count;
}

beforeAll(async () => {
  const port = await freePort();
  server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  await server.listen();
  home = mkdtempSync(join(tmpdir(), 'playbase-cli-home-'));
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    PLAYBASE_URL: server.url,
    PLAYBASE_PASSWORD: ADMIN.password,
  };
});
afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('playbase CLI, as a user', () => {
  it('login (password from PLAYBASE_PASSWORD) → token kept in $XDG_CONFIG_HOME/playbase/login.json, mode 0600, never printed', async () => {
    const ran = await cli(['login', '--username', ADMIN.username]);
    expect(ran.code, ran.stderr).toBe(0);
    const file = join(home, 'config', 'playbase', 'login.json');
    expect(ran.stdout).toContain(`Logged in to ${server.url} as ${ADMIN.username} until `);
    expect(ran.stdout).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'config', 'playbase')).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ server: server.url, username: ADMIN.username });
    expect(stored.accessToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const created = json<{ apiKey: string; name: string }>(
      await inProcess(['games', 'create', 'CLI game', '--json']),
    );
    expect(created.name).toBe('CLI game');
    apiKey = created.apiKey;
  });

  it('config pull FILE, edit, push FILE --yes → the diff shown, then the server has the edit', async () => {
    const file = join(home, 'game.json');
    const pulled = await cli(['config', 'pull', file, '--game', apiKey]);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe(
      `Wrote 0 events, 0 running totals, 0 leaderboards, 0 indexed types, 0 credentials of ${apiKey} to ${file}.\n`,
    );
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config).toEqual({
      apiKey,
      '~events': [],
      '~runningTotals': [],
      '~leaderboards': [],
      '~indexedTypes': [],
      '~credentials': [],
    });
    config['~events'].push({ name: 'Win Race', shortCode: 'winRace', description: 'finished a race' });
    writeFileSync(file, JSON.stringify(config, null, 2));

    const pushed = await cli(['config', 'push', file, '--game', apiKey, '--yes']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain(`--- ${apiKey} (server)`);
    expect(pushed.stdout).toContain(`+++ ${file}`);
    expect(pushed.stdout).toContain('-  "~events": [],');
    expect(pushed.stdout).toContain('+      "shortCode": "winRace",');
    expect(pushed.stdout).toContain(`Pushed: ${apiKey} has 1 event, 0 running totals`);
    const events = await unwrap(
      admin().api.GET('/restv2/game/{apiKey}/config/~events', { params: { path: { apiKey } } }),
    );
    expect(events.map((e) => [e.shortCode, e.description])).toEqual([['winRace', 'finished a race']]);
  });

  it('a pulled file pushed back → no change; push without --yes and no terminal → refused (exit 2), nothing changed', async () => {
    const file = join(home, 'fresh.json');
    expect((await inProcess(['config', 'pull', file, '--game', apiKey])).code).toBe(0);
    const same = await inProcess(['config', 'push', file, '--game', apiKey, '--json']);
    expect([same.code, json(same)]).toEqual([0, { apiKey, changed: false, applied: false, diff: '' }]);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config['~events'][0].description = 'changed';
    writeFileSync(join(home, 'changed.json'), JSON.stringify(config));
    const refused = await inProcess(['config', 'push', join(home, 'changed.json'), '--game', apiKey]);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'playbase: no terminal to ask on: add --yes to push\n',
    ]);
    expect(refused.stdout).toContain(
      '-      "description": "finished a race",\n+      "description": "changed",',
    );
    const events = await unwrap(
      admin().api.GET('/restv2/game/{apiKey}/config/~events', { params: { path: { apiKey } } }),
    );
    expect(events[0]?.description).toBe('finished a race');
  });

  it('snapshot create --json, snapshot publish → the Live stage runs it; snapshot list shows it live', async () => {
    const created = await cli([
      'snapshot',
      'create',
      '--game',
      apiKey,
      '--description',
      'Season 1',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const snapshot = json<{ id: string; description: string; published: boolean }>(created);
    expect(snapshot).toMatchObject({ description: 'Season 1', published: false, createdBy: ADMIN.username });
    const published = await cli(['snapshot', 'publish', snapshot.id, '--game', apiKey]);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toBe(
      `Published snapshot ${snapshot.id}: the Live stage of ${apiKey} runs it now.\n`,
    );
    const live = await unwrap(
      admin().api.GET('/restv2/game/{apiKey}/admin/snapshots/liveSnapshotId', {
        params: { path: { apiKey } },
      }),
    );
    expect(live.liveSnapshotId).toBe(snapshot.id);
    const listed = await inProcess(['snapshot', 'list', '--game', apiKey]);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+CREATED\s+BY\s+LIVE\s+DESCRIPTION$/);
    expect(listed.stdout).toMatch(new RegExp(`^${snapshot.id}\\s.*\\syes\\s+Season 1$`, 'm'));
  });

  it('export mongo --out FILE --json → a gzip file of one {collection, document} line per document', async () => {
    const preview = await admin().stage(apiKey, 'preview');
    const path = { gameApiKey: apiKey, collectionName: 'inventory' };
    await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/runtime', {
        params: { path },
      }),
    );
    const docs = [
      { _id: 'sword', owner: 'ada', level: 3 },
      { _id: 'shield', owner: 'grace', level: 1 },
    ];
    await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/insert', {
        params: { path: { gameApiKey: apiKey, collectionName: 'script.inventory' } },
        body: docs,
      }),
    );
    const out = exported();
    const ran = await cli([
      'export',
      'mongo',
      '--game',
      apiKey,
      '--stage',
      'preview',
      '--out',
      out,
      '--json',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const file = readFileSync(out);
    expect(json(ran)).toEqual({
      kind: 'mongo',
      stage: 'preview',
      apiKey,
      file: out,
      count: 2,
      bytes: file.length,
    });
    expect([...file.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const lines = gunzipSync(file)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Canonical extended JSON, as the export format says.
    const canonical = docs.map(({ level, ...rest }) => ({ ...rest, level: { $numberInt: String(level) } }));
    expect(lines).toEqual(
      expect.arrayContaining(canonical.map((document) => ({ collection: 'script.inventory', document }))),
    );
    expect(lines).toHaveLength(2);
  });

  it('import mongo FILE (the export) into a second game → its documents there, the counts printed; --json → the answer; again → 409 IMPORT_CONFLICT naming line 1', async () => {
    importKey = json<{ apiKey: string }>(await inProcess(['games', 'create', 'CLI import', '--json'])).apiKey;
    const ran = await cli(['import', 'mongo', exported(), '--game', importKey, '--stage', 'preview']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(
      `Imported 2 documents into 1 collection of ${importKey} (preview).\n` +
        'COLLECTION        DOCUMENTS\nscript.inventory  2\n',
    );
    const preview = await admin().stage(importKey, 'preview');
    const found = await unwrap(
      preview.POST('/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find', {
        params: { path: { gameApiKey: importKey, collectionName: 'script.inventory' } },
        body: { sort: { _id: 1 } },
      }),
    );
    expect(found).toEqual([
      { _id: 'shield', owner: 'grace', level: 1 },
      { _id: 'sword', owner: 'ada', level: 3 },
    ]);
    // No --stage: live, as for export; the answer as the server gave it.
    const scripted = await inProcess(['import', 'mongo', exported(), '--game', importKey, '--json']);
    expect([scripted.code, json(scripted)]).toEqual([
      0,
      { imported: 2, collections: { 'script.inventory': 2 } },
    ]);
    expect(await countOf(importKey, 'live', 'script.inventory')).toBe(2);
    const again = await inProcess(['import', 'mongo', exported(), '--game', importKey, '--stage', 'preview']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^playbase: Line 1: .+ \[IMPORT_CONFLICT, request \S+\]\n$/);
    expect(await countOf(importKey, 'preview', 'script.inventory')).toBe(2);
  });

  it('import of an NDJSON file with a bad line 2 → exit 1, the line named, nothing written; a DataExplorer collaborator → 403', async () => {
    const file = join(home, 'bad.ndjson');
    writeFileSync(
      file,
      '{"collection":"script.inventory","document":{"_id":"axe","level":2}}\n' +
        '{"collection":"script.inventory","document":{"_id":"bow"},"extra":1}\n',
    );
    const ran = await inProcess(['import', 'mongo', file, '--game', importKey, '--stage', 'preview']);
    expect([ran.code, ran.stdout]).toEqual([1, '']);
    expect(ran.stderr).toMatch(/^playbase: Line 2: .+ \[IMPORT_BAD_RECORD, request \S+\]\n$/);
    expect(await countOf(importKey, 'preview', 'script.inventory')).toBe(2);
    const missing = await inProcess(['import', 'data', join(home, 'no-such.ndjson'), '--game', importKey]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^playbase: cannot read .*no-such\.ndjson: ENOENT/);

    const username = 'explorer@cli.test';
    const password = 'explorer-pass-1';
    await unwrap(admin().api.POST('/restv2/auth/users', { body: { username, password, country: 'GB' } }));
    await unwrap(
      admin().api.POST('/restv2/auth/game/{apiKey}/collaborators', {
        params: { path: { apiKey: importKey } },
        body: { email: username, groupNames: ['DataExplorer'] },
      }),
    );
    const explorer = { ...env, XDG_CONFIG_HOME: join(home, 'explorer'), PLAYBASE_PASSWORD: password };
    expect((await inProcess(['login', '--username', username], explorer)).code).toBe(0);
    const refused = await inProcess(['import', 'mongo', file, '--game', importKey], explorer);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^playbase: Permission nosql\.dataExplorer at level 2 required \[PERMISSION_DENIED, request \S+\]\n$/,
      ),
    ]);
    expect(await countOf(importKey, 'live', 'script.inventory')).toBe(2);
  });

  it('games list, human and --json → the game created; users create, disable, list, enable', async () => {
    const human = await inProcess(['games', 'list']);
    expect(human.stdout).toMatch(/^API KEY\s+NAME\s+OWNER\s+CREATED\n/);
    expect(human.stdout).toMatch(new RegExp(`^${apiKey}\\s+CLI game\\s+${ADMIN.username}\\s`, 'm'));
    const listed = json<{ apiKey: string }[]>(await inProcess(['games', 'list', '--json']));
    expect(listed.map((g) => g.apiKey).sort()).toEqual([apiKey, importKey].sort());
    const created = await inProcess([
      'users',
      'create',
      'grace@cli.test',
      '--password',
      'grace-pass-1',
      '--country',
      'GB',
    ]);
    expect(created.stdout).toBe('Created grace@cli.test: enabled, country GB.\n');
    expect((await inProcess(['users', 'disable', 'grace@cli.test'])).stdout).toBe(
      'grace@cli.test: disabled, country GB.\n',
    );
    const users = json<{ username: string; disabled: boolean }[]>(
      await inProcess(['users', 'list', '--json']),
    );
    expect(users.find((u) => u.username === 'grace@cli.test')?.disabled).toBe(true);
    expect((await inProcess(['users', 'enable', 'grace@cli.test'])).stdout).toBe(
      'grace@cli.test: enabled, country GB.\n',
    );
  });

  it('scripts import FILE --dry-run, import FILE, export FILE → the changes listed, then the same scripts back', async () => {
    const zipFile = join(home, 'scripts.zip');
    writeFileSync(
      zipFile,
      zipSync({ 'modules/UTILS.js': strToU8('var u = 1;\n'), 'rtScript/x.js': strToU8('x') }),
    );
    const dry = await inProcess(['scripts', 'import', zipFile, '--game', apiKey, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry)).toMatchObject({
      dryRun: true,
      added: ['modules/UTILS.js'],
      refused: [{ file: 'rtScript/x.js' }],
    });
    const applied = await inProcess(['scripts', 'import', zipFile, '--game', apiKey]);
    expect(applied.stdout).toContain(`Imported ${zipFile} into ${apiKey}:\n  added: modules/UTILS.js\n`);
    expect(applied.stdout).toContain('refused rtScript/x.js: folder rtScript is not supported');
    const out = join(home, 'exported.zip');
    const exported = await inProcess(['scripts', 'export', out, '--game', apiKey]);
    expect(exported.stdout).toMatch(/^Wrote the scripts of \S+ to .+exported\.zip \(\d+ bytes\)\.\n$/);
    expect(unzipSync(readFileSync(out))).toEqual({ 'modules/UTILS.js': strToU8('var u = 1;\n') });
  });

  it('a server error → one line naming its code and request, exit 1; --json → the error as JSON on stderr', async () => {
    const ran = await inProcess(['snapshot', 'publish', 'no-such-snapshot', '--game', apiKey]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^playbase: .+ \[SNAPSHOT_NOT_FOUND, request \S+\]\n$/);
    const scripted = await inProcess(['games', 'create', '', '--json']);
    expect(scripted.code).toBe(1);
    expect(JSON.parse(scripted.stderr)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });

  it('the access token never appears in any output; logout → revoked and forgotten', async () => {
    const file = join(home, 'config', 'playbase', 'login.json');
    const { accessToken } = JSON.parse(readFileSync(file, 'utf8'));
    expect(outputs.length).toBeGreaterThan(10);
    expect(outputs.filter((o) => o.includes(accessToken))).toEqual([]);
    const out = await inProcess(['logout']);
    expect(out.stdout).toBe(`Logged out of ${server.url}.\n`);
    const res = await fetch(`${server.url}/restv2/games`, { headers: { 'X-SVCAccessToken': accessToken } });
    expect(res.status).toBe(401);
    const after = await inProcess(['games', 'list']);
    expect([after.code, after.stderr]).toEqual([
      1,
      `playbase: not logged in: run \`playbase login --server ${server.url}\` first\n`,
    ]);
  });
});
