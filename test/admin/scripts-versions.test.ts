// Cloud Code scripts are configuration: snapshots hold them, publish makes them Live (Preview keeps the working
// copy), revert brings them back, copy carries them to another game, and the stage configurations show each.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStageConfig } from '../../src/config/stages.js';
import { type Headers, startWorld, type World } from './world.js';

let w: World;
let snaps: string;

const url = (apiKey: string, path: string) => `/restv2/game/${apiKey}${path}`;
async function ok(method: string, path: string, body?: unknown, as: Headers = w.owner) {
  const res = await w.call(method, path, as, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}
const full = (apiKey: string) => ok('GET', url(apiKey, '/config?full=true'));
const scriptsOf = async (apiKey: string) => (await full(apiKey))['~scripts'];
const putScript = (apiKey: string, path: string, script: string) =>
  ok('PUT', url(apiKey, `/config/~scripts/${path}`), { script });
const stage = async (apiKey: string, name: 'live' | 'preview') =>
  (await loadStageConfig(w.server.store.pool, apiKey, name))?.config['~scripts'];

const WIN_RACE = { name: 'Win', shortCode: 'winRace', description: '' };
const V1 = [
  { folder: 'event', shortCode: 'winRace', script: 'Spark.setScriptData("v", 1);\n' },
  { folder: 'callbacks', shortCode: 'server', script: 'Spark.setScriptData("RESPONSE_RAW", "v1");\n' },
  { folder: 'modules', shortCode: 'UTILS', script: 'var VERSION = 1;\n' },
];

let s1: string;

beforeAll(async () => {
  w = await startWorld();
  snaps = url(w.apiKey, '/admin/snapshots');
  await ok('PUT', url(w.apiKey, '/config'), { '~events': [WIN_RACE], '~credentials': [{ name: 'server' }] });
  // A snapshot from before the game had scripts.
  await ok('POST', snaps, { description: 'no scripts' });
  for (const s of V1) await putScript(w.apiKey, `${s.folder}/${s.shortCode}`, s.script);
  s1 = (await ok('POST', snaps, { description: 'v1' })).id;
}, 60_000);
afterAll(async () => {
  await w.server.close();
});

describe('snapshots and stages', () => {
  it('a snapshot holds the scripts (GET ?full=true shows them in its config)', async () => {
    expect((await ok('GET', `${snaps}/${s1}?full=true`)).config['~scripts']).toEqual(V1);
  });

  it('before a publish Live runs nothing; after it Live runs v1 while Preview runs the working copy', async () => {
    expect(await loadStageConfig(w.server.store.pool, w.apiKey, 'live')).toBeNull();
    await ok('POST', `${snaps}/${s1}/publish`);
    await putScript(w.apiKey, 'event/winRace', 'Spark.setScriptData("v", 2);\n');
    await ok('DELETE', url(w.apiKey, '/config/~scripts/modules/UTILS'));
    expect(await stage(w.apiKey, 'live')).toEqual(V1);
    expect(await stage(w.apiKey, 'preview')).toEqual([
      { folder: 'event', shortCode: 'winRace', script: 'Spark.setScriptData("v", 2);\n' },
      V1[1],
    ]);
    expect(await stage(w.apiKey, 'preview')).toEqual(await scriptsOf(w.apiKey));
  });

  it('a later publish makes the working copy Live', async () => {
    const working = await scriptsOf(w.apiKey);
    const { id } = await ok('POST', snaps, { description: 'v2' });
    await ok('POST', `${snaps}/${id}/publish`);
    expect(await stage(w.apiKey, 'live')).toEqual(working);
  });
});

describe('revert', () => {
  it('revert to v1 → the scripts of v1; the automatic snapshot keeps those reverted away', async () => {
    const before = await scriptsOf(w.apiKey);
    const res = await ok('POST', `${snaps}/revert/to/${s1}`);
    expect(await scriptsOf(w.apiKey)).toEqual(V1);
    expect((await ok('GET', `${snaps}/${res.autosave.id}?full=true`)).config['~scripts']).toEqual(before);
    expect(await stage(w.apiKey, 'preview')).toEqual(V1);
    // The audit entry keeps the scripts by size and SHA-256, as configuration writes do.
    const [entry] = (await ok('GET', url(w.apiKey, '/admin/audit?action=snapshot'))).entries;
    expect(entry).toMatchObject({ action: 'snapshot.revert', target: s1 });
    expect(entry.after['~scripts'][2]).toEqual({
      folder: 'modules',
      shortCode: 'UTILS',
      size: V1[2]?.script.length,
      sha256: createHash('sha256')
        .update(V1[2]?.script ?? '')
        .digest('hex'),
    });
  });

  it('revert to a snapshot from before any script → no scripts', async () => {
    const page = await ok('GET', `${snaps}?pageSize=100`);
    const noScripts = page.find((s: { description: string }) => s.description === 'no scripts');
    await ok('POST', `${snaps}/revert/to/${noScripts.id}`);
    expect(await scriptsOf(w.apiKey)).toBeUndefined();
    expect(await ok('GET', url(w.apiKey, '/config/~scripts'))).toEqual([]);
    await ok('POST', `${snaps}/revert/to/${s1}`);
  });
});

describe('copy', () => {
  it('copy to a new game → the same scripts, callback script and its credential included', async () => {
    const { targetGameApiKey } = await ok('POST', `${snaps}/${s1}/copy?name=Copied`);
    expect(await scriptsOf(targetGameApiKey)).toEqual(V1);
    expect(await ok('GET', url(targetGameApiKey, '/config/~credentials/server'))).toMatchObject({
      name: 'server',
    });
  });

  it('copy to an existing game → its scripts replaced by those of the snapshot', async () => {
    await ok('PUT', url(w.otherApiKey, '/config'), {
      '~scripts': [{ folder: 'modules', shortCode: 'OWN', script: 'var own;' }],
    });
    await ok('POST', `${snaps}/${s1}/copy/to/${w.otherApiKey}`);
    expect(await scriptsOf(w.otherApiKey)).toEqual(V1);
  });
});
