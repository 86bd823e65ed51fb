// The web console driven as a person uses it, in Debian's Chromium, against a server started as a user starts
// it (issue 18). One browser and one server for the whole file; the steps follow each other.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, TEST_DATABASE_URL } from '../harness.js';
import { ADMIN, expectAccessible, startWorld, type World } from './browser.test-util.js';

const READER = { username: 'reader@playbase.test', password: 'reader-password-1' };

describe('web console (browser)', () => {
  let w: World;
  let apiKey = '';
  let secret = '';
  beforeAll(async () => {
    w = await startWorld();
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('the landing page links to the console; a wrong password shows the API error; signing in shows the games', async () => {
    const { page } = w;
    await page.goto(`${w.url}/`);
    await page.getByRole('link', { name: 'Web console' }).click();
    await page.getByLabel('Username').waitFor();
    await expectAccessible(page, 'sign in');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('AUTH_INVALID');
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
    await expectAccessible(page, 'games');
    // The token lives in this tab's sessionStorage only.
    const stored = await page.evaluate('({ local: localStorage.length, cookie: document.cookie })');
    expect(stored).toEqual({ local: 0, cookie: '' });
  });

  it('New game with no name → the API error at the Name field; with a name → its overview with key and URLs', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'New game' }).click();
    await page.getByRole('button', { name: 'Create' }).click();
    const name = page.getByLabel('Name', { exact: true });
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await name.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toMatch(/characters/);
    await name.fill('Space Miners');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Space Miners', level: 1 }).waitFor();
    apiKey = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    expect(apiKey).toMatch(/^[a-z0-9]{20}$/);
    await expect.poll(() => page.locator('main').textContent()).toContain(`${w.url}/live`);
    await page.getByRole('button', { name: 'Copy API key' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(apiKey);
    await expectAccessible(page, 'game overview');
  });

  it('an event with a bad short code → the error at the field; then the event with two attributes is saved', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('button', { name: 'New event' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Win race');
    await page.getByLabel('Short code', { exact: true }).fill('win-race');
    await page.getByLabel('Description').fill('A race won');
    for (const [n, code, type, aggregation] of [
      [1, 'SCORE', 'int', 'MAX'],
      [2, 'TIME', 'number', 'MIN'],
    ] as const) {
      await page.getByRole('button', { name: 'Add attribute' }).click();
      await page.getByLabel(`Attribute ${n} name`).fill(code.toLowerCase());
      await page.getByLabel(`Attribute ${n} short code`).fill(code);
      await page.getByLabel(`Attribute ${n} data type`).selectOption(type);
      await page.getByLabel(`Attribute ${n} aggregation`).selectOption(aggregation);
    }
    await page.getByRole('button', { name: 'Save' }).click();
    const shortCode = page.getByLabel('Short code', { exact: true });
    await expect.poll(() => shortCode.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'event form with an error');
    await shortCode.fill('winRace');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'SCORE, TIME' }).waitFor();
    // The README's screenshot of the configurator (written by the embedded-store run only).
    if (!TEST_DATABASE_URL) await page.screenshot({ path: 'docs/images/console-configurator.png' });
    await expectAccessible(page, 'events');
  });

  it('a running total and a leaderboard built on the event', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Running totals' }).click();
    await page.getByRole('button', { name: 'New running total' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Best score');
    await page.getByLabel('Short code', { exact: true }).fill('bestScore');
    await page.getByLabel('Collector 1 attribute').selectOption('SCORE');
    await page.getByLabel('Collector 1 calculation').selectOption('MAX');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'winRace: MAX SCORE' }).waitFor();
    await expectAccessible(page, 'running totals');
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Top scores');
    await page.getByLabel('Short code', { exact: true }).fill('topScores');
    await page.getByLabel('Reset frequency').selectOption('WEEKLY');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'bestScore.SCORE DESC; reset WEEKLY' }).waitFor();
    await expectAccessible(page, 'leaderboards');
  });

  it('a server credential: a bad name → the error at Name; created → its secret shown once, copied', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Credentials' }).click();
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('bad name!');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('gameServer');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'New secret' }).waitFor();
    await page.getByRole('button', { name: 'Copy secret of gameServer' }).click();
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(await page.locator('main code').first().textContent()).toBe(copied);
    expect(copied.length).toBeGreaterThan(16);
    secret = copied;
    await expectAccessible(page, 'credentials');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByText(copied).count()).toBe(0);
  });

  it('an indexed type: a field name the API refuses → the error at that field; then saved', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Indexed types' }).click();
    await page.getByRole('button', { name: 'New indexed type' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Inventory');
    await page.getByLabel('Short code', { exact: true }).fill('inventory');
    const field = page.getByLabel('Field 1 name');
    await field.fill('item id');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await field.fill('itemId');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'itemId (string)' }).waitFor();
    await expectAccessible(page, 'indexed types');
  });

  it('the whole configuration: downloaded, edited, uploaded → the difference shown, then applied', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Whole configuration' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download configuration' }).click(),
    ]);
    const config = JSON.parse(readFileSync((await download.path()) as string, 'utf8'));
    expect(config['~events'].map((e: { shortCode: string }) => e.shortCode)).toEqual(['winRace']);
    config['~events'].push({ name: 'Uploaded', shortCode: 'uploaded', description: 'from a file' });
    await page.getByLabel('Configuration file (JSON)').setInputFiles({
      name: 'edited.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(config)),
    });
    await page.getByRole('heading', { name: 'Difference: edited.json against the working copy' }).waitFor();
    expect(await page.locator('.unified .added').textContent()).toContain('+       "shortCode": "uploaded",');
    await expectAccessible(page, 'whole configuration with a difference');
    await page.getByRole('button', { name: 'Apply configuration' }).click();
    await page.getByText('Configuration applied to the working copy.').waitFor();
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('cell', { name: 'uploaded', exact: true }).waitFor();
  });

  it('an expired session opens sign-in over the page; after signing in the form is saved as typed', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('button', { name: 'New event' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Lose race');
    await page.getByLabel('Short code', { exact: true }).fill('loseRace');
    await page.getByLabel('Description').fill('kept across sign-in');
    // Every session of the account ends (as after a password change elsewhere).
    const res = await fetch(`${w.url}/restv2/auth/user/sessions`, {
      method: 'DELETE',
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
    });
    expect(res.status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    await dialog.getByLabel('Password').fill(ADMIN.password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('cell', { name: 'loseRace', exact: true }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('an event script written in the Cloud Code editor is saved to the working copy (Preview)', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Cloud Code' }).click();
    await page.getByLabel('Folder').selectOption('event');
    await page.getByLabel('Short code', { exact: true }).fill('winRace');
    await page.getByRole('button', { name: 'Create script' }).click();
    await page.getByRole('textbox', { name: 'Source of event/winRace' }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('Spark.setScriptData("season", 1);\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved to the working copy (Preview).').waitFor();
  });

  it('create a snapshot and publish it: Live marks it and runs it; the audit log has the publish', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Snapshots' }).click();
    await page.getByLabel('Description').fill('Season 1');
    await page.getByRole('button', { name: 'Create snapshot' }).click();
    const row = page.getByRole('row', { name: /Season 1/ });
    await row.waitFor();
    await row.getByRole('button', { name: /^Publish/ }).click();
    await row.getByText('Live', { exact: true }).waitFor();
    await expect.poll(() => page.locator('main').textContent()).toContain('Live runs: Season 1');
    await expectAccessible(page, 'snapshots');
    // Live changed: its runtime requests now run the published event and its script.
    const live = async (request: string, body: Record<string, unknown>) => {
      const url = `${w.url}/live/rs/gameServer/${encodeURIComponent(secret)}/${request}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    await expect
      .poll(async () => (await live('RegistrationRequest', { userName: 'racer', password: 'pw' })).userId)
      .toEqual(expect.any(String));
    const login = await live('AuthenticationRequest', { userName: 'racer', password: 'pw' });
    const won = await live('LogEventRequest', {
      playerId: login.userId,
      eventKey: 'winRace',
      SCORE: 3,
      TIME: 9,
    });
    expect(won).toMatchObject({ '@class': '.LogEventResponse', scriptData: { season: 1 } });
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByText('snapshot.publish', { exact: true }).waitFor();
    await expectAccessible(page, 'audit log');
  });

  it('Team: a collaborator added with the ReadOnly group by e-mail', async () => {
    const { page } = w;
    const made = await fetch(`${w.url}/restv2/auth/users`, {
      method: 'POST',
      headers: { authorization: basic(ADMIN.username, ADMIN.password), 'content-type': 'application/json' },
      body: JSON.stringify({ ...READER, country: 'FR' }),
    });
    expect(made.status).toBe(201);
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Collaborators' }).waitFor();
    await page.getByLabel('E-mail').fill(READER.username);
    await page.getByLabel('ReadOnly').check();
    await page.getByRole('button', { name: 'Add collaborator' }).click();
    await page.getByRole('cell', { name: READER.username, exact: true }).waitFor();
    await expectAccessible(page, 'team');
  });

  it('the account page; Sign out returns to sign-in with nothing stored', async () => {
    const { page } = w;
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Change password' }).waitFor();
    await expectAccessible(page, 'account');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });

  it('the read-only collaborator sees the game but no control to change it; publishing is disabled', async () => {
    const { page } = w;
    await page.getByLabel('Username').fill(READER.username);
    await page.getByLabel('Password').fill(READER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Space Miners' }).click();
    await page.getByRole('heading', { name: 'Keys and stage URLs' }).waitFor();
    expect(await page.getByRole('button', { name: 'Rename' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Move to recycle bin' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('cell', { name: 'winRace', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'New event' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete)/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Snapshots' }).click();
    const row = page.getByRole('row', { name: /Season 1/ });
    await row.waitFor();
    expect(await row.getByRole('button', { name: /^Unpublish/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create snapshot' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'snapshots, read only');
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Groups' }).waitFor();
    for (const hidden of ['New group', /^Edit/, 'Transfer ownership', 'Add collaborator'])
      expect(await page.getByRole('button', { name: hidden }).count()).toBe(0);
    await page.getByRole('link', { name: 'Cloud Code' }).click();
    await page.getByRole('button', { name: 'Download scripts (zip)' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create script' }).count()).toBe(0);
    expect(await page.getByLabel('Scripts zip to import').count()).toBe(0);
    // The API still refuses what the page hides.
    const token = JSON.parse(
      (await page.evaluate("sessionStorage.getItem('playbase.console.session')")) as string,
    ).accessToken;
    const refused = await fetch(`${w.url}/restv2/game/${apiKey}/config/~events`, {
      method: 'POST',
      headers: { 'x-svcaccesstoken': token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'No', shortCode: 'no', description: '' }),
    });
    expect(refused.status).toBe(403);
  });
});
