// Cloud Code scripts as configuration: the ~scripts routes, their checks (syntax, references, sizes), the whole
// configuration document, deletions of what a script points at, and the audit entries of script writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_LIMITS } from '../../src/config/config-types.js';
import { RUNTIME_REQUESTS } from '../../src/runtime/request-schemas.js';
import { RESPONSE_CLASS_OF, RUNTIME_REQUEST_CLASSES } from '../../src/types/cloud-code.js';
import { type ConfigWorld, startConfigWorld, WIN_RACE } from './world.js';

let w: ConfigWorld;
let scripts: string;
const SOURCE = '// Cloud Code for winRace\nconst n = 1;\nlet m = n + 1;\nSpark.setScriptData("m", m);\n';

beforeAll(async () => {
  w = await startConfigWorld();
  scripts = `${w.base}/~scripts`;
  await w.ok('POST', `${w.base}/~events`, WIN_RACE);
  await w.ok('POST', `${w.base}/~credentials`, { name: 'facebook-hook' });
}, 60_000);
afterAll(() => w.close());

const put = (path: string, script: unknown) => w.call('PUT', `${scripts}/${path}`, w.owner, { script });

describe('PUT, GET, list, DELETE', () => {
  it('PUT creates, GET reads it back, PUT again replaces; the list has size and SHA-256, no source', async () => {
    const created = await put('event/winRace', SOURCE);
    expect([created.statusCode, created.json()]).toEqual([
      200,
      { folder: 'event', shortCode: 'winRace', script: SOURCE },
    ]);
    expect(await w.ok('GET', `${scripts}/event/winRace`)).toEqual({
      folder: 'event',
      shortCode: 'winRace',
      script: SOURCE,
    });
    const next = `${SOURCE}// é\n`;
    expect((await put('event/winRace', next)).statusCode).toBe(200);
    await w.ok('PUT', `${scripts}/modules/UTILS`, { script: 'function twice(x) { return 2 * x; }' });
    const list = await w.ok('GET', scripts);
    expect(list).toEqual([
      {
        folder: 'event',
        shortCode: 'winRace',
        size: Buffer.byteLength(next),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      { folder: 'modules', shortCode: 'UTILS', size: 35, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(list[0].sha256).not.toBe((await w.ok('GET', scripts))[1].sha256);
  });

  it('DELETE removes it (then 404 SCRIPT_NOT_FOUND on GET and DELETE)', async () => {
    await w.ok('PUT', `${scripts}/modules/GONE`, { script: 'var x;' });
    expect(await w.ok('DELETE', `${scripts}/modules/GONE`)).toEqual({ message: 'SUCCESS' });
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await w.call(method, `${scripts}/modules/GONE`, w.owner);
      expect([res.statusCode, res.json().code]).toEqual([404, 'SCRIPT_NOT_FOUND']);
    }
  });

  it('unknown game → 404 GAME_NOT_FOUND; unknown folder or bad short code → 400 VALIDATION_FAILED', async () => {
    const game = await w.call('PUT', '/restv2/game/nosuchgame0000000000/config/~scripts/modules/A', w.owner, {
      script: 'var a;',
    });
    expect([game.statusCode, game.json().code]).toEqual([404, 'GAME_NOT_FOUND']);
    for (const path of ['rtScript/A', 'modules/a.b', 'modules/9lives']) {
      const res = await put(path, 'var a;');
      expect([path, res.statusCode, res.json().code]).toEqual([path, 400, 'VALIDATION_FAILED']);
    }
    for (const body of [{}, { script: {} }, { script: 'x', extra: 1 }]) {
      const res = await w.call('PUT', `${scripts}/modules/A`, w.owner, body);
      expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    }
  });
});

describe('concurrency', () => {
  it('8 concurrent PUTs of different scripts → 200 each, and every one kept', async () => {
    const codes = Array.from({ length: 8 }, (_, i) => `PAR${i}`);
    const answers = await Promise.all(codes.map((c) => put(`modules/${c}`, `var ${c} = ${c.length};`)));
    expect(answers.map((a) => a.statusCode)).toEqual(codes.map(() => 200));
    const held = (await w.ok('GET', scripts)).map((e: { shortCode: string }) => e.shortCode);
    expect(codes.filter((c) => !held.includes(c))).toEqual([]);
    await Promise.all(codes.map((c) => w.ok('DELETE', `${scripts}/modules/${c}`)));
  });
});

describe('syntax', () => {
  it('a syntax error → 400 SCRIPT_SYNTAX_ERROR with line and column in details; nothing stored', async () => {
    const res = await put('modules/BROKEN', 'var ok = 1;\nvar x = {\n  a: 1,,\n};\n');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'SCRIPT_SYNTAX_ERROR',
      details: [{ field: 'script', folder: 'modules', shortCode: 'BROKEN', line: 3, column: 8 }],
    });
    expect(res.json().message).toMatch(/^modules\/BROKEN:3:8: /);
    expect((await w.call('GET', `${scripts}/modules/BROKEN`, w.owner)).statusCode).toBe(404);
  });

  it("nesting deeper than the parser's stack (100 000 brackets) → 400 SCRIPT_SYNTAX_ERROR, never 500", async () => {
    for (const source of ['['.repeat(100_000), `${'('.repeat(100_000)}1${')'.repeat(100_000)}`]) {
      const res = await put('modules/DEEP', source);
      expect([res.statusCode, res.json().code]).toEqual([400, 'SCRIPT_SYNTAX_ERROR']);
    }
  });

  it('ES5 with const/let, and ES2020 (arrows, classes, templates, ?. and ??) pass; import/export do not', async () => {
    const es2020 =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a script, not a template
      'const f = (a) => a?.b ?? `x${1}`;\nclass K { m() { return 1; } }\nlet [p, ...q] = [1, 2];';
    expect((await put('modules/MODERN', es2020)).statusCode).toBe(200);
    const esm = await put('modules/ESM', 'import x from "y";');
    expect([esm.statusCode, esm.json().details[0].line]).toEqual([400, 1]);
    const topReturn = await put('modules/RET', 'return 1;');
    expect(topReturn.json().code).toBe('SCRIPT_SYNTAX_ERROR');
  });
});

describe('what a script name points at', () => {
  it('event script without its event → 400 CONFIG_REFERENCE_INVALID', async () => {
    const res = await put('event/noSuchEvent', 'var a;');
    expect([res.statusCode, res.json().code]).toEqual([400, 'CONFIG_REFERENCE_INVALID']);
    expect(res.json().message).toContain('/~events/noSuchEvent is not an event of this game');
  });

  it('request scripts take request classes, response scripts response classes, system scripts GS_*', async () => {
    for (const cls of RUNTIME_REQUEST_CLASSES)
      expect((await put(`request/${cls}`, 'var a;')).statusCode).toBe(200);
    for (const cls of new Set(Object.values(RESPONSE_CLASS_OF))) {
      expect((await put(`response/${cls}`, 'var a;')).statusCode).toBe(200);
    }
    for (const code of ['GS_MINUTE', 'GS_HOURLY', 'GS_DAILY', 'GS_GAME_PUBLISH']) {
      expect((await put(`system/${code}`, 'var a;')).statusCode).toBe(200);
    }
    for (const bad of [
      'request/LogEventResponse',
      'request/FooRequest',
      'response/LogEventRequest',
      'system/GS_WEEKLY',
    ]) {
      const res = await put(bad, 'var a;');
      expect([bad, res.statusCode, res.json().code]).toEqual([bad, 400, 'CONFIG_REFERENCE_INVALID']);
    }
  });

  it('the request classes are those of the runtime API', () => {
    expect([...RUNTIME_REQUEST_CLASSES].sort()).toEqual(Object.keys(RUNTIME_REQUESTS).sort());
    type Answer = { properties: { '@class': { const: string } } };
    for (const [request, response] of Object.entries(RESPONSE_CLASS_OF)) {
      const answer = RUNTIME_REQUESTS[request]?.answer as Answer | undefined;
      expect(answer?.properties['@class'].const).toBe(`.${response}`);
    }
  });

  it('callback scripts need a server credential of that name; modules are free', async () => {
    expect((await put('callbacks/facebook-hook', 'var a;')).statusCode).toBe(200);
    const res = await put('callbacks/nobody', 'var a;');
    expect([res.statusCode, res.json().code]).toEqual([400, 'CONFIG_REFERENCE_INVALID']);
    expect((await put('modules/ANYTHING_at_all', 'var a;')).statusCode).toBe(200);
  });

  it('deleting an event with a script → 409 CONFIG_IN_USE naming the script; after the script, 200', async () => {
    await w.ok('POST', `${w.base}/~events`, { name: 'Gone', shortCode: 'gone', description: '' });
    await w.ok('PUT', `${scripts}/event/gone`, { script: 'var a;' });
    const refused = await w.call('DELETE', `${w.base}/~events/gone`, w.owner);
    expect([refused.statusCode, refused.json().code, refused.json().message]).toEqual([
      409,
      'CONFIG_IN_USE',
      '/~events/gone is referenced by /~scripts/event/gone',
    ]);
    await w.ok('DELETE', `${scripts}/event/gone`);
    expect((await w.call('DELETE', `${w.base}/~events/gone`, w.owner)).statusCode).toBe(200);
  });

  it('deleting a credential with a callback script → 409 CONFIG_IN_USE; the credential stays', async () => {
    await w.ok('POST', `${w.base}/~credentials`, { name: 'steam' });
    await w.ok('PUT', `${scripts}/callbacks/steam`, { script: 'var a;' });
    const refused = await w.call('DELETE', `${w.base}/~credentials/steam`, w.owner);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'CONFIG_IN_USE']);
    expect((await w.call('GET', `${w.base}/~credentials/steam`, w.owner)).statusCode).toBe(200);
    await w.ok('DELETE', `${scripts}/callbacks/steam`);
    expect((await w.call('DELETE', `${w.base}/~credentials/steam`, w.owner)).statusCode).toBe(200);
  });
});

describe('sizes', () => {
  it('a script over 256 KiB in UTF-8 → 400 CONFIG_INVALID (and over 256 Ki characters → VALIDATION_FAILED)', async () => {
    // 100 000 three-byte characters: under the character limit, over the byte limit.
    const wide = `// ${'€'.repeat(100_000)}\n`;
    const res = await put('modules/WIDE', wide);
    expect([res.statusCode, res.json().code]).toEqual([400, 'CONFIG_INVALID']);
    expect(res.json().message).toContain(`a script holds at most ${SCRIPT_LIMITS.scriptBytes}`);
    const long = await put('modules/LONG', `//${'a'.repeat(SCRIPT_LIMITS.scriptBytes)}`);
    expect([long.statusCode, long.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('the scripts of a game together over 2 MiB → 400 CONFIG_INVALID; the ones before stay', async () => {
    const chunk = `// ${'x'.repeat(SCRIPT_LIMITS.scriptBytes - 100)}\n`;
    const before = await w.ok('GET', scripts);
    const codes: string[] = [];
    let last = 200;
    for (let i = 0; i < 9 && last === 200; i++) {
      const res = await put(`modules/BIG${i}`, chunk);
      last = res.statusCode;
      if (last === 200) codes.push(`BIG${i}`);
      else
        expect([res.json().code, res.json().message]).toEqual([
          'CONFIG_INVALID',
          expect.stringContaining('a game holds at most 2097152'),
        ]);
    }
    expect(last).toBe(400);
    for (const c of codes) await w.ok('DELETE', `${scripts}/modules/${c}`);
    expect(await w.ok('GET', scripts)).toEqual(before);
  });
});

describe('the whole configuration document', () => {
  it('GET /config?full=true has ~scripts; PUT of that answer changes nothing; PUT without ~scripts deletes them', async () => {
    const full = await w.ok('GET', `${w.base}?full=true`);
    expect(full['~scripts']).toContainEqual({
      folder: 'event',
      shortCode: 'winRace',
      script: expect.any(String),
    });
    const again = await w.ok('PUT', w.base, full);
    expect(again).toEqual(full);
    const other = `/restv2/game/${w.otherApiKey}/config`;
    await w.ok('PUT', other, {
      '~events': [WIN_RACE],
      '~scripts': [{ folder: 'event', shortCode: 'winRace', script: 'var a;' }],
    });
    expect((await w.ok('GET', `${other}?full=true`))['~scripts']).toEqual([
      { folder: 'event', shortCode: 'winRace', script: 'var a;' },
    ]);
    const cleared = await w.ok('PUT', other, { '~events': [WIN_RACE] });
    expect(cleared['~scripts']).toBeUndefined();
    expect(await w.ok('GET', `${other}/~scripts`)).toEqual([]);
  });

  it('PUT /config with a broken script, a dangling one or a duplicate → 400, nothing changes', async () => {
    const other = `/restv2/game/${w.otherApiKey}/config`;
    const before = await w.ok('GET', `${other}?full=true`);
    const s = (folder: string, shortCode: string, script = 'var a;') => ({ folder, shortCode, script });
    const cases: [unknown[], string][] = [
      [[s('modules', 'A', 'var = ;')], 'SCRIPT_SYNTAX_ERROR'],
      [[s('event', 'nope')], 'CONFIG_REFERENCE_INVALID'],
      [[s('callbacks', 'server')], 'CONFIG_REFERENCE_INVALID'],
      [[s('modules', 'A'), s('modules', 'A')], 'CONFIG_INVALID'],
      [[s('rtModules', 'A')], 'VALIDATION_FAILED'],
    ];
    for (const [list, code] of cases) {
      const res = await w.call('PUT', other, w.owner, { '~events': [WIN_RACE], '~scripts': list });
      expect([res.statusCode, res.json().code]).toEqual([400, code]);
    }
    const syntax = await w.call('PUT', other, w.owner, {
      '~scripts': [s('modules', 'B'), s('modules', 'A', 'if (')],
    });
    expect(syntax.json().details[0]).toMatchObject({ field: '~scripts.1.script', line: 1, column: 5 });
    // A callback script passes once its credential is in the same document.
    const ok = await w.call('PUT', other, w.owner, {
      '~credentials': [{ name: 'server' }],
      '~scripts': [s('callbacks', 'server')],
    });
    expect(ok.statusCode).toBe(200);
    await w.ok('PUT', other, before);
    expect(await w.ok('GET', `${other}?full=true`)).toEqual(before);
  });
});

describe('audit', () => {
  it('PUT and DELETE of a script → config.put / config.delete entries; scripts by size and SHA-256', async () => {
    await w.ok('PUT', `${scripts}/modules/AUDITED`, { script: 'var audited = 1;' });
    await w.ok('DELETE', `${scripts}/modules/AUDITED`);
    const res = await w.call('GET', `/restv2/game/${w.apiKey}/admin/audit?action=config`, w.owner);
    const [deleted, put] = res.json().entries;
    expect(put).toMatchObject({
      action: 'config.put',
      target: '/restv2/game/:apiKey/config/~scripts/:folder/:shortCode',
    });
    expect(deleted).toMatchObject({
      action: 'config.delete',
      path: `/restv2/game/${w.apiKey}/config/~scripts/modules/AUDITED`,
    });
    const audited = (c: { '~scripts': unknown[] }) =>
      c['~scripts'].find((s) => (s as { shortCode: string }).shortCode === 'AUDITED');
    expect(audited(put.before)).toBeUndefined();
    expect(audited(put.after)).toEqual({
      folder: 'modules',
      shortCode: 'AUDITED',
      size: 16,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(audited(deleted.after)).toBeUndefined();
  });

  it('a refused write (syntax, 403) → no entry', async () => {
    const count = async () =>
      (await w.call('GET', `/restv2/game/${w.apiKey}/admin/audit?action=config`, w.owner)).json().entries
        .length;
    const before = await count();
    await put('modules/NOPE', 'var = ;');
    const readOnly = await w.collaborator(['ReadOnly']);
    const denied = await w.call('PUT', `${scripts}/modules/NOPE`, readOnly, { script: 'var a;' });
    expect(denied.statusCode).toBe(403);
    expect(await count()).toBe(before);
  });
});
