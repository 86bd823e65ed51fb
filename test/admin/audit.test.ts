// The audit log through the server: entries for writes of every role, filters, paging, permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../harness.js';
import { createAccount, startWorld, type World } from './world.js';

let w: World;
let audit: string;

beforeAll(async () => {
  w = await startWorld();
  audit = `/restv2/game/${w.apiKey}/admin/audit`;
});
afterAll(async () => {
  await w.server.close();
});

interface Entry {
  actor: string;
  action: string;
  target: string | null;
  path: string | null;
  at: string;
  before?: unknown;
  after?: unknown;
}

async function entries(query = ''): Promise<Entry[]> {
  const res = await w.call('GET', `${audit}${query}`, w.owner);
  expect(res.statusCode).toBe(200);
  return res.json().entries;
}

describe('audit log', () => {
  it('manage writes → one entry each, in the same transaction, with before and after', async () => {
    const base = `/restv2/game/${w.apiKey}/manage/screens`;
    await w.call('POST', base, w.owner, { shortCode: 'audited', name: 'A' });
    await w.call('PUT', `${base}/audited`, w.owner, { name: 'B' });
    await w.call('DELETE', `${base}/audited`, w.owner);

    const found = (await entries('?action=manage.screen')).filter((e) => e.target === 'audited');
    expect(found.map((e) => e.action)).toEqual([
      'manage.screen.delete',
      'manage.screen.update',
      'manage.screen.create',
    ]);
    expect(found.every((e) => e.actor === w.ownerName)).toBe(true);
    expect(found[1]).toMatchObject({ before: { name: 'A' }, after: { name: 'B' } });
    expect(found[0]?.after).toBeUndefined();
  });

  it('configuration write → entry with the whole configuration before and after', async () => {
    const event = (shortCode: string) => ({ name: shortCode, shortCode, description: '' });
    await w.call('PUT', `/restv2/game/${w.apiKey}/config`, w.owner, { '~events': [event('first')] });
    const res = await w.call('PUT', `/restv2/game/${w.apiKey}/config`, w.owner, {
      '~events': [event('second')],
    });
    expect(res.statusCode).toBe(200);
    const [entry] = await entries('?action=config');
    expect(entry).toMatchObject({ action: 'config.put', target: '/restv2/game/:apiKey/config' });
    const codes = (c: unknown) =>
      (c as { '~events': { shortCode: string }[] })['~events'].map((e) => e.shortCode);
    expect([codes(entry?.before), codes(entry?.after)]).toEqual([['first'], ['second']]);
  });

  it('game creation → entry on the new game; account creation → on no game', async () => {
    const created = await w.call('POST', '/restv2/games', w.owner, { name: 'Audited game' });
    const key = created.json().apiKey as string;
    const res = await w.call('GET', `/restv2/game/${key}/admin/audit`, w.owner);
    expect(res.json().entries).toMatchObject([{ action: 'game.post', apiKey: key, actor: w.ownerName }]);
    const { rows } = await w.server.store.pool.query(
      `SELECT api_key FROM audit_log WHERE action = 'auth.post' AND path = '/restv2/auth/users'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.api_key === null)).toBe(true);
  });

  it('game delete and restore → one entry each on the game, newest first; a refused restore → none', async () => {
    const created = await w.call('POST', '/restv2/games', w.owner, { name: 'Binned game' });
    const key = created.json().apiKey as string;
    expect((await w.call('DELETE', `/restv2/game/${key}`, w.owner)).statusCode).toBe(200);
    expect((await w.call('DELETE', `/restv2/game/${key}`, w.owner)).statusCode).toBe(404);
    expect((await w.call('POST', `/restv2/game/${key}/restore`, w.owner)).statusCode).toBe(200);
    expect((await w.call('POST', `/restv2/game/${key}/restore`, w.owner)).statusCode).not.toBe(200);
    const res = await w.call('GET', `/restv2/game/${key}/admin/audit`, w.owner);
    expect(res.json().entries).toMatchObject([
      { action: 'game.post', target: '/restv2/game/:apiKey/restore', status: 200, actor: w.ownerName },
      { action: 'game.delete', target: '/restv2/game/:apiKey', status: 200, actor: w.ownerName },
      { action: 'game.post', target: '/restv2/games', status: 201 },
    ]);
  });

  it('a refused write (403, 400) → no entry', async () => {
    const before = (await entries()).length;
    await w.call('POST', `/restv2/game/${w.apiKey}/manage/screens`, w.readOnly, {
      shortCode: 'x',
      name: 'X',
    });
    await w.call('POST', `/restv2/game/${w.apiKey}/manage/screens`, w.owner, { shortCode: 'bad code' });
    expect((await entries()).length).toBe(before);
  });

  it('auth writes on the game (collaborators) → recorded by the hook, token in the URL redacted', async () => {
    const token = w.owner['x-svcaccesstoken'] as string;
    const res = await w.call(
      'PUT',
      `/restv2/auth/game/${w.apiKey}/collaborators/${w.readerName}?X-SVCAccessToken=${token}`,
      {},
      { groupNames: ['ReadOnly'] },
    );
    expect(res.statusCode).toBe(200);
    const [entry] = await entries('?action=auth');
    expect(entry).toMatchObject({ action: 'auth.put', actor: w.ownerName });
    expect(entry?.path).toContain('X-SVCAccessToken=REDACTED');
    expect(entry?.path).not.toContain(token);
  });

  it('filters by actor and by time range; pages newest first', async () => {
    w.server.now.advance(60_000);
    const mark = new Date(w.server.now.value).toISOString();
    for (const code of ['p1', 'p2', 'p3']) {
      await w.call('POST', `/restv2/game/${w.apiKey}/manage/snippets`, w.owner, {
        shortCode: code,
        name: code,
      });
    }
    const since = await entries(`?since=${encodeURIComponent(mark)}`);
    expect(since.map((e) => e.target)).toEqual(['p3', 'p2', 'p1']);
    const until = await entries(`?until=${w.server.now.value - 1}&action=manage.snippet`);
    expect(until).toEqual([]);

    const page2 = await w.call(
      'GET',
      `${audit}?since=${encodeURIComponent(mark)}&pageSize=2&page=2`,
      w.owner,
    );
    expect(page2.json()).toMatchObject({ page: 2, pageSize: 2, total: 3 });
    expect(page2.json().entries.map((e: Entry) => e.target)).toEqual(['p1']);

    expect(await entries('?actor=nobody@admin.test')).toEqual([]);
    expect((await entries(`?actor=${w.ownerName.toUpperCase()}`)).length).toBeGreaterThan(0);
  });

  it('bad since, since after until, bad page → 400', async () => {
    const bad = await w.call('GET', `${audit}?since=yesterday`, w.owner);
    const reversed = await w.call('GET', `${audit}?since=2026-01-02&until=2026-01-01`, w.owner);
    const page = await w.call('GET', `${audit}?page=0`, w.owner);
    const unknown = await w.call('GET', `${audit}?colour=red`, w.owner);
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'AUDIT_RANGE_INVALID']);
    expect([reversed.statusCode, reversed.json().code]).toEqual([400, 'AUDIT_RANGE_INVALID']);
    expect([page.statusCode, page.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(unknown.statusCode).toBe(400);
  });

  it('entries of another game are not shown', async () => {
    await w.call('POST', `/restv2/game/${w.otherApiKey}/manage/screens`, w.owner, {
      shortCode: 'elsewhere',
      name: 'E',
    });
    expect((await entries()).some((e) => e.target === 'elsewhere')).toBe(false);
  });

  it('an auth-only process → its writes are recorded too', async () => {
    const auth = await startTestServer({ PLAYBASE_ROLES: 'auth' });
    try {
      await createAccount(auth, 'split@admin.test', 'split-password-1');
      const { rows } = await auth.store.pool.query(`SELECT actor, action, path FROM audit_log`);
      expect(rows).toEqual([
        { actor: 'admin@playbase.test', action: 'auth.post', path: '/restv2/auth/users' },
      ]);
    } finally {
      await auth.close();
    }
  });

  it('JWT of another game → 403; expired token → 401; ReadOnly (admin 1) may read', async () => {
    const jwt = await w.call('GET', audit, w.otherGameJwt);
    const expired = await w.call('GET', audit, w.expired);
    const reader = await w.call('GET', audit, w.readOnly);
    expect([jwt.statusCode, expired.statusCode, reader.statusCode]).toEqual([403, 401, 200]);
  });
});
