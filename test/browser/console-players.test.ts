// Player support, leaderboard entries and the script log driven in Debian's Chromium (issue 19, items 2, 3
// and 6): find a player by name, credit currency, ban and see the ban refuse an authentication, unban, export
// and check the file, erase and check nothing of the player remains; a board's entries, one deleted, the board
// reset; a script's error with its stack; the Leaderboard Management library screen (issue 19, item 4).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../harness.js';
import { ADMIN, expectAccessible, startWorld, type World } from './browser.test-util.js';
import { type Game, type Json, openGamePage, player, seedGame } from './runtime-data.test-util.js';

describe('players, leaderboard entries and script log (browser)', () => {
  let w: World;
  let g: Game;
  const ids: Record<string, string> = {};
  /** A nosql-role call as the admin (JWT): status and answer. */
  const nosql = async (path: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const jwt = await fetch(`${w.url}/restv2/auth/game/${g.apiKey}/jwt/nosql`, {
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
    }).then(async (r) => ((await r.json()) as Json)['X-SVC-JWT'] as string);
    const res = await fetch(`${w.url}/preview/restv2/game/${g.apiKey}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-svc-jwt': jwt, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  beforeAll(async () => {
    w = await startWorld();
    g = await seedGame(w.url, 'Support game');
    for (const [name, score, country] of [
      ['annika', 50, 'GB'],
      ['bob', 70, 'GB'],
      ['dan', 90, 'FR'],
    ] as const)
      ids[name] = await player(g, name, score, country);
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('find a player by name; credit currency; ban refuses its authentication; unban lets it in again', async () => {
    const { page } = w;
    await openGamePage(page, w.url, g.apiKey, 'players');
    await page.getByRole('heading', { name: 'Players', level: 1 }).waitFor();
    await page.getByLabel('Player', { exact: true }).fill('ANN');
    await page.getByLabel('Match').selectOption('userName');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'annika' }).click();
    await page.getByRole('heading', { name: 'Player annika' }).waitFor();
    const status = page.getByRole('region', { name: 'Player annika' }).getByRole('status');
    await expectAccessible(page, 'players');

    await page.getByLabel('currency1').fill('500');
    await page.getByRole('button', { name: 'Save player' }).click();
    await expect.poll(() => status.textContent()).toBe('Saved');
    expect(((await nosql(`/players/${ids.annika}`)).body.currencies as Json).currency1).toBe(500);

    const login = () => g.rs('AuthenticationRequest', { userName: 'annika', password: 'pw-annika' });
    await page.getByLabel('Ban reason').fill('chargeback');
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await page.getByText(/Banned at .* by console-admin@playbase.test: chargeback/).waitFor();
    expect((await login()).error).toEqual({ DETAILS: 'LOCKED' });
    await page.getByRole('button', { name: 'Unban' }).click();
    await page.getByText('Not banned').waitFor();
    expect((await login()).userId).toBe(ids.annika);
  });

  it('export downloads everything held about the player; erase leaves nothing of it', async () => {
    const { page } = w;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export player' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`player-${ids.annika}.json`);
    const file = JSON.parse(readFileSync((await download.path()) ?? '', 'utf8')) as Json;
    expect(file).toMatchObject({ playerId: ids.annika, stage: 'preview', passwordSet: true });
    expect((file.player as Json).userName).toBe('annika');
    expect(file.leaderboardEntries).toEqual(
      expect.arrayContaining([expect.objectContaining({ leaderboard: 'TOP' })]),
    );

    // What erase must delete: the running total and the leaderboard mirror keyed by the player.
    const held = async () => {
      const counts: number[] = [];
      for (const c of ['HSC-runningTotal', 'TOP-leaderboard'])
        counts.push(
          (await nosql(`/mongo/collection/${c}/count`, { query: { userId: ids.annika } })).body
            .count as number,
        );
      return counts;
    };
    const before = await held();
    expect(before.every((n) => n > 0)).toBe(true);
    await page.getByRole('button', { name: 'Erase player' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Erased/);
    await page.getByText('No player matches.').waitFor();
    expect((await nosql(`/players/${ids.annika}`)).status).toBe(404);
    const top = await nosql('/leaderboards/TOP/entries');
    expect(JSON.stringify(top.body)).not.toContain(ids.annika);
    expect(await held()).toEqual([0, 0]);
    expect((await nosql(`/players/${ids.annika}/export`)).status).toBe(404);
    expect(
      (await g.rs('AuthenticationRequest', { userName: 'annika', password: 'pw-annika' })).error,
    ).toEqual({
      DETAILS: 'UNRECOGNISED',
    });
  });

  it('leaderboard entries: top entries, partitions and next reset; an entry deleted; the board reset now', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Leaderboard entries' }).click();
    await page.getByRole('heading', { name: 'Leaderboard entries', level: 1 }).waitFor();
    await expect.poll(() => page.locator('dl.keys').textContent()).toMatch(/Next reset\d{4}-/);
    await page.getByRole('button', { name: 'Top entries' }).click();
    await page.getByRole('cell', { name: '"dan"' }).waitFor();
    await page.getByRole('cell', { name: '"bob"' }).waitFor();
    await expectAccessible(page, 'leaderboard entries');
    await page.getByLabel('Board', { exact: true }).selectOption('TOP.COUNTRY.FR');
    await page.getByLabel('Player id').fill(ids.dan ?? '');
    await page.getByRole('button', { name: 'Entries around the player' }).click();
    await page.getByRole('heading', { name: 'Entries of TOP.COUNTRY.FR' }).waitFor();
    await page.getByRole('cell', { name: '"bob"' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '"dan"' }).waitFor();

    await page.getByLabel('Board', { exact: true }).selectOption('TOP');
    await page.getByRole('button', { name: 'Top entries' }).click();
    await page.getByRole('button', { name: 'Delete entry of bob' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Deleted the entry of bob');
    await page.getByRole('cell', { name: '"bob"' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '"dan"' }).waitFor();
    await page.getByRole('button', { name: 'Reset now' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Reset TOP: \d+ boards/);
    await page.getByText('No entries.').waitFor();
  });

  it('script log: the error of a script with its stack, filtered by level and player', async () => {
    const { page } = w;
    const failed = await g.rs('LogEventRequest', { playerId: ids.bob, eventKey: 'score', SCORE: 5000 });
    expect(failed.error).toBeDefined();
    await page.getByRole('link', { name: 'Script log' }).click();
    await page.getByRole('heading', { name: 'Script log', level: 1 }).waitFor();
    await page.getByText('scored 90').waitFor();
    await page.getByLabel('Level').selectOption('ERROR');
    await page.getByLabel('Player id').fill(ids.bob ?? '');
    await page.getByLabel('Script').fill('event/sc');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('scored 90').waitFor({ state: 'detached' });
    await page.getByText('score too high').waitFor();
    expect(await page.getByText('scored 70').count()).toBe(0);
    await page.getByText(/^Stack/).click();
    await expect.poll(() => page.locator('pre').first().textContent()).toContain('event/score');
    await expectAccessible(page, 'script log');
  });

  it('the Leaderboard Management library screen lists a board by rank; its Cloud Code deletes an entry', async () => {
    const { page } = w;
    ids.erin = await player(g, 'erin', 80, 'GB');
    ids.frank = await player(g, 'frank', 60, 'FR');
    await page.goto(`${w.url}/console/#/game/${g.apiKey}/manage`);
    await page.getByRole('button', { name: 'Install Leaderboard Management' }).click();
    await page.getByRole('button', { name: 'Open Leaderboard Management' }).click();
    await page.getByLabel('Leaderboard short code').fill('TOP');
    await page.getByRole('button', { name: 'Show entries' }).click();
    const rows = page.locator('.gs-screen tbody tr');
    await page.getByRole('cell', { name: 'frank', exact: true }).waitFor();
    // The board was reset by the test before: erin (80) and frank (60) only, by rank.
    expect(await rows.locator('td:first-child').allTextContents()).toEqual(['1', '2']);
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(['erin', 'frank']);
    await expectAccessible(page, 'leaderboard management screen');
    await page.getByRole('button', { name: 'Delete entry of frank' }).click();
    await page.getByRole('cell', { name: 'frank', exact: true }).waitFor({ state: 'detached' });
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(['erin']);
    const top = await nosql('/leaderboards/TOP/entries');
    expect(JSON.stringify(top.body)).toContain(ids.erin);
    expect(JSON.stringify(top.body)).not.toContain(ids.frank);
  });

  it('a support reader: players and data found, no control to change them; the API refuses a ban', async () => {
    const { page } = w;
    const reader = { username: 'support@playbase.test', password: 'support-password-1' };
    await fetch(`${w.url}/restv2/auth/users`, {
      method: 'POST',
      headers: { authorization: basic(ADMIN.username, ADMIN.password), 'content-type': 'application/json' },
      body: JSON.stringify({ ...reader, country: 'GB' }),
    });
    const permissions = { game: 1, nosql: 1, 'nosql.players': 1, 'nosql.leaderboards': 1 };
    await g.api('POST', `/restv2/auth/game/${g.apiKey}/groups`, { name: 'Support', permissions });
    await g.api('POST', `/restv2/auth/game/${g.apiKey}/collaborators`, {
      email: reader.username,
      groupNames: ['Support'],
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').fill(reader.username);
    await page.getByLabel('Password').fill(reader.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Support game' }).click();
    await page.getByRole('link', { name: 'Players' }).click();
    await page.getByLabel('Player', { exact: true }).fill('dan');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'dan', exact: true }).click();
    await page.getByRole('button', { name: 'Export player' }).waitFor();
    for (const name of ['Save player', 'Ban', 'Erase player', 'Reset sessions'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    await expectAccessible(page, 'players, read only');
    await page.getByRole('link', { name: 'Data Explorer' }).click();
    await page.getByRole('button', { name: 'player', exact: true }).click();
    await page.getByRole('button', { name: 'Find' }).waitFor();
    for (const name of ['Insert', 'Update', 'Remove matching', 'Create index'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    const token = JSON.parse(
      (await page.evaluate("sessionStorage.getItem('playbase.console.session')")) as string,
    ).accessToken;
    const jwt = await fetch(`${w.url}/restv2/auth/game/${g.apiKey}/jwt/nosql`, {
      headers: { 'x-svcaccesstoken': token },
    }).then(async (r) => ((await r.json()) as Json)['X-SVC-JWT'] as string);
    const refused = await fetch(`${w.url}/preview/restv2/game/${g.apiKey}/players/${ids.dan}/ban`, {
      method: 'POST',
      headers: { 'x-svc-jwt': jwt, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
  });
});
