// Screen snapshots (/manage/snapshots): the Manage section saved, published after the game, reverted and copied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './world.js';

let w: World;
let manage: string;
let screens: string;

async function ok(method: string, path: string, body?: unknown) {
  const res = await w.call(method, path, w.owner, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

beforeAll(async () => {
  w = await startWorld();
  manage = `/restv2/game/${w.apiKey}/manage`;
  screens = `${manage}/snapshots`;
  await ok('POST', `${manage}/screens`, { shortCode: 'home', name: 'Home', template: 'v1' });
  await ok('POST', `${manage}/snippets`, { shortCode: 'grant', name: 'Grant', script: 'x()' });
});
afterAll(async () => {
  await w.server.close();
});

describe('screen snapshots', () => {
  it('create → holds screens, snippets and queries; game snapshots are separate', async () => {
    const snap = await ok('POST', screens, { description: 'screens v1' });
    const full = await ok('GET', `${screens}/${snap.id}?full=true`);
    expect(full.config.screens.map((s: { shortCode: string }) => s.shortCode)).toEqual(['home']);
    expect(full.config.snippets[0]).toMatchObject({ shortCode: 'grant', script: 'x()' });
    expect(full.config.queries).toEqual([]);
    expect(await ok('GET', `/restv2/game/${w.apiKey}/admin/snapshots`)).toEqual([]);
    expect((await ok('GET', screens)).map((s: { id: string }) => s.id)).toEqual([snap.id]);
  });

  it('publish before any game snapshot is Live → 409 GAME_NOT_PUBLISHED; after one → Live', async () => {
    const [snap] = await ok('GET', screens);
    const early = await w.call('POST', `${screens}/${snap.id}/publish`, w.owner);
    expect([early.statusCode, early.json().code]).toEqual([409, 'GAME_NOT_PUBLISHED']);
    expect((await ok('GET', `${screens}/liveSnapshotId`)).liveSnapshotId).toBeNull();

    const game = await ok('POST', `/restv2/game/${w.apiKey}/admin/snapshots`, { description: 'game' });
    await ok('POST', `/restv2/game/${w.apiKey}/admin/snapshots/${game.id}/publish`);
    expect(await ok('POST', `${screens}/${snap.id}/publish`)).toMatchObject({ id: snap.id, published: true });
    expect((await ok('GET', `${screens}/liveSnapshotId`)).liveSnapshotId).toBe(snap.id);
    expect((await ok('GET', `/restv2/game/${w.apiKey}/admin/snapshots/liveSnapshotId`)).liveSnapshotId).toBe(
      game.id,
    );
  });

  it('revert → Manage section as snapshotted, after an automatic screen snapshot', async () => {
    const [snap] = await ok('GET', screens);
    await ok('PUT', `${manage}/screens/home`, { name: 'Home', template: 'v2' });
    await ok('DELETE', `${manage}/snippets/grant`);
    await ok('POST', `${manage}/queries`, { shortCode: 'q', name: 'Q', collection: 'player' });

    const res = await ok('POST', `${screens}/revert/to/${snap.id}`);
    expect(res.autosave.description).toBe('AUTOSAVE - Pre Revert');
    expect((await ok('GET', `${manage}/screens/home`)).template).toBe('v1');
    expect((await ok('GET', `${manage}/snippets`)).map((s: { shortCode: string }) => s.shortCode)).toEqual([
      'grant',
    ]);
    expect(await ok('GET', `${manage}/queries`)).toEqual([]);
    const autosave = await ok('GET', `${screens}/${res.autosave.id}?full=true`);
    expect(autosave.config.queries.map((q: { shortCode: string }) => q.shortCode)).toEqual(['q']);
  });

  it('copy to another game → its Manage section replaced, its previous one autosaved; no copy to a new game', async () => {
    const other = `/restv2/game/${w.otherApiKey}/manage`;
    await ok('POST', `${other}/screens`, { shortCode: 'theirs', name: 'Theirs' });
    const [snap] = await ok('GET', screens);
    const res = await ok('POST', `${screens}/${snap.id}/copy/to/${w.otherApiKey}`);
    expect(res.autosave.description).toBe('AUTOSAVE - Pre Copy');
    expect((await ok('GET', `${other}/screens`)).map((s: { shortCode: string }) => s.shortCode)).toEqual([
      'home',
    ]);
    const newGame = await w.call('POST', `${screens}/${snap.id}/copy`, w.owner);
    expect(newGame.statusCode).toBe(404);
  });

  it('ReadOnly → reads, but create, publish and revert → 403; expired → 401; JWT of another game → 403', async () => {
    const [snap] = await ok('GET', screens);
    expect((await w.call('GET', screens, w.readOnly)).statusCode).toBe(200);
    const refused = await Promise.all([
      w.call('POST', screens, w.readOnly, { description: 'x' }),
      w.call('POST', `${screens}/${snap.id}/publish`, w.readOnly),
      w.call('POST', `${screens}/revert/to/${snap.id}`, w.readOnly),
    ]);
    expect(refused.map((r) => r.statusCode)).toEqual([403, 403, 403]);
    expect((await w.call('GET', screens, w.expired)).statusCode).toBe(401);
    expect((await w.call('GET', screens, w.otherGameJwt)).statusCode).toBe(403);
  });
});
