// Cloud Code as a zip: export in the original layout, import (and dryRun) back, and zips that must be refused whole.
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZIP_LIMITS } from '../../src/config/script-zip.js';
import { type ConfigWorld, startConfigWorld, WIN_RACE } from './world.js';

let w: ConfigWorld;
let scripts: string;
const enc = (text: string) => new TextEncoder().encode(text);

const SCRIPTS = [
  { folder: 'event', shortCode: 'winRace', script: '// Cloud Code for winRace\nrequireOnce("UTILS");\n' },
  { folder: 'request', shortCode: 'LogEventRequest', script: 'var d = Spark.getData();\n' },
  { folder: 'response', shortCode: 'LogEventResponse', script: 'Spark.setScriptData("t", 1);\n' },
  { folder: 'system', shortCode: 'GS_MINUTE', script: 'Spark.getLog().debug("tick");\n' },
  { folder: 'callbacks', shortCode: 'server', script: 'Spark.setScriptData("RESPONSE_RAW", "ok");\n' },
  { folder: 'modules', shortCode: 'UTILS', script: 'function twice(x) { return 2 * x; } // ünïcode\n' },
];

beforeAll(async () => {
  w = await startConfigWorld();
  scripts = `${w.base}/~scripts`;
  await w.ok('PUT', w.base, {
    '~events': [WIN_RACE],
    '~credentials': [{ name: 'server' }],
    '~scripts': SCRIPTS,
  });
}, 60_000);
afterAll(() => w.close());

const post = (zip: Uint8Array, query = '', type = 'application/zip') =>
  w.server.app.inject({
    method: 'POST',
    url: `${scripts}/import${query}`,
    headers: { ...w.owner, 'content-type': type },
    payload: Buffer.from(zip),
  });
const exportZip = async (apiKey = w.apiKey) => {
  const res = await w.call('GET', `/restv2/game/${apiKey}/config/~scripts/export`, w.owner);
  expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/zip']);
  return new Uint8Array(res.rawPayload);
};
const auditCount = async () =>
  (await w.call('GET', `/restv2/game/${w.apiKey}/admin/audit?action=config`, w.owner)).json().entries.length;

describe('export', () => {
  it('answers a zip with one <folder>/<shortCode>.js per script, UTF-8 sources, as an attachment', async () => {
    const res = await w.call('GET', `${scripts}/export`, w.owner);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${w.apiKey}-scripts.zip"`);
    const files = unzipSync(new Uint8Array(res.rawPayload));
    const text = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, new TextDecoder().decode(v)]));
    expect(text).toEqual(Object.fromEntries(SCRIPTS.map((s) => [`${s.folder}/${s.shortCode}.js`, s.script])));
  });

  it('the same scripts always give the same bytes; a game without scripts gives an empty zip', async () => {
    expect(await exportZip()).toEqual(await exportZip());
    expect(Object.keys(unzipSync(await exportZip(w.otherApiKey)))).toEqual([]);
  });
});

describe('import', () => {
  it('export → delete every script → import: the same scripts, the same export bytes', async () => {
    const zip = await exportZip();
    const full = await w.ok('GET', `${w.base}?full=true`);
    await w.ok('PUT', w.base, { ...full, '~scripts': [] });
    expect(await w.ok('GET', scripts)).toEqual([]);
    const res = await post(zip);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      dryRun: false,
      added: SCRIPTS.map((s) => `${s.folder}/${s.shortCode}.js`),
      changed: [],
      deleted: [],
      unchanged: [],
      refused: [],
    });
    expect((await w.ok('GET', `${w.base}?full=true`))['~scripts']).toEqual(SCRIPTS);
    expect(await exportZip()).toEqual(zip);
  });

  it('dryRun answers added, changed, deleted and refused files and writes nothing; the import then does it', async () => {
    const before = await w.ok('GET', `${w.base}?full=true`);
    const entriesBefore = await auditCount();
    const files: Record<string, Uint8Array> = {};
    for (const s of SCRIPTS.filter((s) => s.folder !== 'system')) {
      files[`${s.folder}/${s.shortCode}.js`] = enc(s.script);
    }
    files['event/winRace.js'] = enc('// changed\n');
    files['modules/NEW.js'] = enc('\uFEFFvar fresh = true;\n');
    files['modules/UTILS.js'] = enc('function twice(x) { return 2 * x;\n'); // a syntax error: UTILS is kept
    files['rtScript/match.js'] = enc('var rt;');
    files['event/noSuchEvent.js'] = enc('var e;');
    files['callbacks/nobody.js'] = enc('var c;');
    files['modules/readme.txt'] = enc('hello');
    files['modules/bin.js'] = new Uint8Array([0xff, 0xfe, 0x00]);
    const zip = zipSync(files);
    const expected = {
      added: ['modules/NEW.js'],
      changed: ['event/winRace.js'],
      deleted: ['system/GS_MINUTE.js'],
      unchanged: ['request/LogEventRequest.js', 'response/LogEventResponse.js', 'callbacks/server.js'],
      refused: [
        { file: 'modules/UTILS.js', reason: expect.stringMatching(/^2:1: Unexpected token/) },
        { file: 'rtScript/match.js', reason: expect.stringContaining('folder rtScript is not supported') },
        { file: 'modules/readme.txt', reason: 'not a .js file' },
        { file: 'modules/bin.js', reason: 'not UTF-8 text' },
        { file: 'event/noSuchEvent.js', reason: expect.stringContaining('is not an event of this game') },
        { file: 'callbacks/nobody.js', reason: expect.stringContaining('is not a server credential') },
      ],
    };
    const dry = await post(zip, '?dryRun=true');
    expect([dry.statusCode, dry.json()]).toEqual([200, { dryRun: true, ...expected }]);
    expect(await w.ok('GET', `${w.base}?full=true`)).toEqual(before);
    expect(await auditCount()).toBe(entriesBefore);

    const applied = await post(zip);
    expect([applied.statusCode, applied.json()]).toEqual([200, { dryRun: false, ...expected }]);
    const after = (await w.ok('GET', `${w.base}?full=true`))['~scripts'];
    expect(after.map((s: { folder: string; shortCode: string }) => `${s.folder}/${s.shortCode}`)).toEqual([
      'event/winRace',
      'request/LogEventRequest',
      'response/LogEventResponse',
      'callbacks/server',
      'modules/NEW',
      'modules/UTILS',
    ]);
    expect(after.find((s: { shortCode: string }) => s.shortCode === 'NEW').script).toBe(
      'var fresh = true;\n',
    );
    expect(after.find((s: { shortCode: string }) => s.shortCode === 'UTILS').script).toBe(SCRIPTS[5]?.script);
    expect(await auditCount()).toBe(entriesBefore + 1);
    // Back to the start for the tests after.
    await w.ok('PUT', w.base, before);
  });

  it('a zip of one folder holding the layout (MyGame/event/x.js) is read as the layout', async () => {
    const zip = zipSync({
      'MyGame/modules/UTILS.js': enc(SCRIPTS[5]?.script ?? ''),
      'MyGame/': new Uint8Array(),
    });
    const res = await post(zip, '?dryRun=true');
    expect(res.json()).toMatchObject({ unchanged: ['modules/UTILS.js'], refused: [] });
  });

  it('a file larger than a script may be is refused by name, never inflated', async () => {
    const zip = zipSync({ 'modules/HUGE.js': new Uint8Array(4 * 1024 * 1024).fill(32) });
    expect(zip.length).toBeLessThan(200_000);
    const res = await post(zip, '?dryRun=true');
    expect(res.json().refused).toEqual([
      { file: 'modules/HUGE.js', reason: expect.stringContaining('4194304 bytes') },
    ]);
  });

  it('import into a game with too many bytes together → 400 CONFIG_INVALID, nothing changes', async () => {
    const big = `// ${'x'.repeat(250_000)}\n`;
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 9; i++) files[`modules/BIG${i}.js`] = enc(big);
    const before = await w.ok('GET', scripts);
    const res = await post(zipSync(files));
    expect([res.statusCode, res.json().code]).toEqual([400, 'CONFIG_INVALID']);
    expect(await w.ok('GET', scripts)).toEqual(before);
  });
});

/** Sets the uncompressed size of the zip's first entry, in its local header and in the central directory. */
function lieAboutSize(zip: Uint8Array, size: number): Uint8Array {
  const out = Buffer.from(zip);
  out.writeUInt32LE(size, 22);
  const eocd = out.length - 22;
  const central = out.readUInt32LE(eocd + 16);
  out.writeUInt32LE(size, central + 24);
  return new Uint8Array(out);
}

describe('zips refused whole (400 SCRIPT_ZIP_INVALID), nothing applied', () => {
  const refusedWhole = async (zip: Uint8Array, message: RegExp) => {
    const before = await w.ok('GET', scripts);
    for (const query of ['', '?dryRun=true']) {
      const res = await post(zip, query);
      expect([res.statusCode, res.json().code]).toEqual([400, 'SCRIPT_ZIP_INVALID']);
      expect(res.json().message).toMatch(message);
    }
    expect(await w.ok('GET', scripts)).toEqual(before);
  };

  it('a zip bomb that declares a small size: inflation stops at the declared size', async () => {
    const bomb = zipSync({ 'modules/BOMB.js': new Uint8Array(20 * 1024 * 1024).fill(32) });
    await refusedWhole(lieAboutSize(bomb, 1000), /modules\/BOMB\.js: .*too many bytes/);
  });

  it('entries that together declare more than 8 MiB', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 40; i++) files[`modules/M${i}.js`] = new Uint8Array(250_000).fill(32);
    await refusedWhole(zipSync(files), /inflate to more than 8388608 bytes/);
  });

  it('../ names, absolute names, backslashes that climb', async () => {
    for (const name of ['../evil.js', 'modules/../../evil.js', '/etc/evil.js', 'modules\\..\\..\\evil.js']) {
      await refusedWhole(zipSync({ [name]: enc('var a;') }), /path|fileName|unsafe/);
    }
  });

  it(`more than ${ZIP_LIMITS.entries} entries`, async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i <= ZIP_LIMITS.entries; i++) files[`modules/M${i}.js`] = enc('');
    await refusedWhole(zipSync(files, { level: 0 }), /2001 entries/);
  });

  it('bytes that are not a zip', async () => {
    await refusedWhole(enc('this is not a zip at all, just text'), /not a readable zip/);
  });
});

describe('the import body', () => {
  it('another media type → 415; no body → 400; over 4 MiB → 413', async () => {
    const json = await post(enc('{}'), '', 'application/json');
    expect([json.statusCode, json.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const none = await w.call('POST', `${scripts}/import`, w.owner);
    expect([none.statusCode, none.json().code]).toEqual([400, 'BAD_REQUEST']);
    const large = await post(new Uint8Array(ZIP_LIMITS.zipBytes + 1));
    expect([large.statusCode, large.json().code]).toEqual([413, 'BODY_TOO_LARGE']);
  });

  it('dryRun=maybe → 400 VALIDATION_FAILED', async () => {
    const res = await post(zipSync({}), '?dryRun=maybe');
    expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});
