// Reverting to a snapshot and copying one to other games: automatic snapshots, secrets carried, include flags, rights.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredentialSecret } from '../../src/config/config-store.js';
import { createAccount, createGameAs, type Headers, startWorld, tokenOf, type World } from './world.js';

let w: World;
let snaps: string;

const event = (shortCode: string) => ({
  name: shortCode,
  shortCode,
  description: '',
  '~attributes': [{ name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'SUM' }],
});
const apple = () => ({
  keyPem: generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
  keyId: 'KEY1234567',
  teamId: 'TEAM123456',
  topic: 'com.example.game',
});

const url = (apiKey: string, path: string) => `/restv2/game/${apiKey}${path}`;
async function ok(method: string, path: string, body?: unknown, as: Headers = w.owner) {
  const res = await w.call(method, path, as, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}
const full = (apiKey: string) => ok('GET', url(apiKey, '/config?full=true'));
const withoutKey = ({ apiKey: _omit, ...rest }: Record<string, unknown>) => rest;
const list = (apiKey: string) => ok('GET', url(apiKey, '/admin/snapshots'));

beforeAll(async () => {
  w = await startWorld();
  snaps = url(w.apiKey, '/admin/snapshots');
});
afterAll(async () => {
  await w.server.close();
});

describe('revert', () => {
  it('revert → configuration, credential secrets and push keys restored; an automatic snapshot saved first', async () => {
    await ok('PUT', url(w.apiKey, '/config'), { '~events': [event('kept')] });
    const { secret } = await ok('POST', url(w.apiKey, '/config/~credentials'), { name: 'server' });
    await ok('PUT', url(w.apiKey, '/config/~pushCredentials'), { apple: apple() });
    const pushView = await ok('GET', url(w.apiKey, '/config/~pushCredentials'));
    const saved = await full(w.apiKey);
    const { id } = await ok('POST', snaps, { description: 'good' });

    await ok('PUT', url(w.apiKey, '/config'), {
      '~events': [event('broken')],
      '~credentials': [{ name: 'server' }],
    });
    await ok('POST', url(w.apiKey, '/config/~credentials/server/resetSecret'));
    await ok('PUT', url(w.apiKey, '/config/~pushCredentials'), {});
    const broken = await full(w.apiKey);
    const auditBefore = (await ok('GET', url(w.apiKey, '/admin/audit?pageSize=500'))).entries;

    const res = await ok('POST', `${snaps}/revert/to/${id}`);
    expect(res).toMatchObject({ message: 'SUCCESS', autosave: { description: 'AUTOSAVE - Pre Revert' } });
    expect(await full(w.apiKey)).toEqual(saved);
    expect(await verifyCredentialSecret(w.server.store.pool, w.apiKey, 'server', secret)).toBe(true);
    expect(await ok('GET', url(w.apiKey, '/config/~pushCredentials'))).toEqual(pushView);

    const [newest] = await list(w.apiKey);
    expect(newest).toMatchObject({ id: res.autosave.id, description: 'AUTOSAVE - Pre Revert' });
    expect((await ok('GET', `${snaps}/${newest.id}?full=true`)).config).toEqual(broken);

    const auditAfter = (await ok('GET', url(w.apiKey, '/admin/audit?pageSize=500'))).entries;
    const ids = auditAfter.map((e: { id: string }) => e.id);
    expect(auditBefore.every((e: { id: string }) => ids.includes(e.id))).toBe(true);
    expect(auditAfter[0]).toMatchObject({ action: 'snapshot.revert', target: id, after: saved });
  });

  it('revert to an unknown snapshot → 404, no automatic snapshot, nothing changed', async () => {
    const before = await full(w.apiKey);
    const count = (await list(w.apiKey)).length;
    const res = await w.call('POST', `${snaps}/revert/to/000000000000000000000000`, w.owner);
    expect([res.statusCode, res.json().code]).toEqual([404, 'SNAPSHOT_NOT_FOUND']);
    expect((await list(w.apiKey)).length).toBe(count);
    expect(await full(w.apiKey)).toEqual(before);
  });
});

describe('copy', () => {
  it('copy to a new game → identical configuration, same credential secret, push keys usable there', async () => {
    await ok('PUT', url(w.apiKey, '/config'), {
      '~events': [event('copied')],
      '~credentials': [{ name: 'server' }],
    });
    const { secret } = await ok('POST', url(w.apiKey, '/config/~credentials/server/resetSecret'));
    await ok('PUT', url(w.apiKey, '/config/~pushCredentials'), { apple: apple() });
    const { id } = await ok('POST', snaps, { description: 'to copy' });

    const res = await ok('POST', `${snaps}/${id}/copy?name=Copied`);
    const target = res.targetGameApiKey as string;
    expect(target).not.toBe(w.apiKey);
    expect(withoutKey(await full(target))).toEqual(withoutKey(await full(w.apiKey)));
    expect(await verifyCredentialSecret(w.server.store.pool, target, 'server', secret)).toBe(true);
    expect(await ok('GET', url(target, '/config/~pushCredentials'))).toEqual(
      await ok('GET', url(w.apiKey, '/config/~pushCredentials')),
    );
    expect(await ok('GET', url(target, ''))).toMatchObject({ name: 'Copied', owner: w.ownerName });
  });

  it('include flags → only what they name; collaborators copied only when asked; none → 400', async () => {
    const { id } = await ok('POST', snaps, { description: 'flags' });
    const bare = await ok('POST', `${snaps}/${id}/copy?includeConfig=false&includeCollaborators=true`);
    expect((await full(bare.targetGameApiKey))['~events']).toEqual([]);
    const collaborators = await ok('GET', `/restv2/auth/game/${bare.targetGameApiKey}/collaborators`);
    expect(collaborators).toEqual([{ email: w.readerName, groupNames: ['ReadOnly'] }]);

    const plain = await ok('POST', `${snaps}/${id}/copy`);
    expect(await ok('GET', `/restv2/auth/game/${plain.targetGameApiKey}/collaborators`)).toEqual([]);

    const none = await w.call('POST', `${snaps}/${id}/copy?includeConfig=false&includeMeta=false`, w.owner);
    expect([none.statusCode, none.json().code]).toEqual([400, 'SNAPSHOT_COPY_EMPTY']);
    const bad = await w.call('POST', `${snaps}/${id}/copy?includeConfig=maybe`, w.owner);
    expect(bad.statusCode).toBe(400);
  });

  it('copy to an existing game → its configuration replaced after an "AUTOSAVE - Pre Copy" of it', async () => {
    await ok('PUT', url(w.otherApiKey, '/config'), { '~events': [event('targetOwn')] });
    const targetBefore = await full(w.otherApiKey);
    await ok('PUT', url(w.apiKey, '/config'), { '~events': [event('sourceEvent')] });
    const { id } = await ok('POST', snaps, { description: 'over' });

    const res = await ok('POST', `${snaps}/${id}/copy/to/${w.otherApiKey}`);
    expect(res).toMatchObject({
      targetGameApiKey: w.otherApiKey,
      autosave: { description: 'AUTOSAVE - Pre Copy' },
    });
    expect((await full(w.otherApiKey))['~events'].map((e: { shortCode: string }) => e.shortCode)).toEqual([
      'sourceEvent',
    ]);
    const autosave = await ok('GET', url(w.otherApiKey, `/admin/snapshots/${res.autosave.id}?full=true`));
    expect(autosave.config).toEqual(targetBefore);
  });

  it('copy to itself → 400; to a game where the caller is ReadOnly → 403, target unchanged', async () => {
    const { id } = await ok('POST', snaps, { description: 'self' });
    const self = await w.call('POST', `${snaps}/${id}/copy/to/${w.apiKey}`, w.owner);
    expect([self.statusCode, self.json().code]).toEqual([400, 'SNAPSHOT_COPY_TO_SELF']);

    // The reader owns a game of their own, and is ReadOnly on the owner's: copying from theirs into it is refused.
    const stranger = `stranger@admin.test`;
    await createAccount(w.server, stranger, 'stranger-pass-1');
    const as = await tokenOf(w.server, stranger, 'stranger-pass-1');
    const own = await createGameAs(w.server, as, 'Stranger game');
    await ok('POST', `/restv2/auth/game/${w.apiKey}/collaborators`, {
      email: stranger,
      groupNames: ['ReadOnly'],
    });
    const theirs = await ok('POST', url(own, '/admin/snapshots'), { description: 'theirs' }, as);
    const before = await full(w.apiKey);
    const refused = await w.call('POST', url(own, `/admin/snapshots/${theirs.id}/copy/to/${w.apiKey}`), as);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const foreign = await w.call(
      'POST',
      url(own, `/admin/snapshots/${theirs.id}/copy/to/${w.otherApiKey}`),
      as,
    );
    expect([foreign.statusCode, foreign.json().code]).toEqual([403, 'GAME_ACCESS_DENIED']);
    expect(await full(w.apiKey)).toEqual(before);
  });
});

describe('permissions', () => {
  it('ReadOnly → lists and reads; create, delete, revert, copy, publish → 403', async () => {
    const { id } = await ok('POST', snaps, { description: 'perm' });
    expect((await w.call('GET', snaps, w.readOnly)).statusCode).toBe(200);
    expect((await w.call('GET', `${snaps}/${id}`, w.readOnly)).statusCode).toBe(200);
    expect((await w.call('GET', `${snaps}/liveSnapshotId`, w.readOnly)).statusCode).toBe(200);
    const writes = await Promise.all([
      w.call('POST', snaps, w.readOnly, { description: 'x' }),
      w.call('DELETE', `${snaps}/${id}`, w.readOnly),
      w.call('POST', `${snaps}/revert/to/${id}`, w.readOnly),
      w.call('POST', `${snaps}/${id}/copy`, w.readOnly),
      w.call('POST', `${snaps}/${id}/publish`, w.readOnly),
      w.call('POST', `${snaps}/${id}/unpublish`, w.readOnly),
    ]);
    expect(writes.map((r) => r.statusCode)).toEqual([403, 403, 403, 403, 403, 403]);
    expect((await ok('GET', `${snaps}/${id}`)).id).toBe(id);
  });

  it('Developer → may snapshot but not publish (admin.publish)', async () => {
    await createAccount(w.server, 'dev@admin.test', 'developer-pass-1');
    await ok('POST', `/restv2/auth/game/${w.apiKey}/collaborators`, {
      email: 'dev@admin.test',
      groupNames: ['Developer'],
    });
    const dev = await tokenOf(w.server, 'dev@admin.test', 'developer-pass-1');
    const created = await w.call('POST', snaps, dev, { description: 'by dev' });
    expect(created.statusCode).toBe(201);
    const publish = await w.call('POST', `${snaps}/${created.json().id}/publish`, dev);
    expect([publish.statusCode, publish.json().message]).toEqual([
      403,
      'Permission admin.publish at level 2 required',
    ]);
  });

  it('JWT of another game → 403; expired token → 401', async () => {
    const jwt = await w.call('POST', snaps, w.otherGameJwt, { description: 'x' });
    const expired = await w.call('GET', snaps, w.expired);
    expect([jwt.statusCode, jwt.json().code]).toEqual([403, 'JWT_WRONG_GAME']);
    expect([expired.statusCode, expired.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
  });
});
