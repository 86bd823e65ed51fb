// The console's Team page in Debian's Chromium (issue 18): a group made and edited as a tree of permission keys
// (a refused name shown at its field), and the ownership handed to a collaborator, after which the former owner no
// longer sees the transfer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, adminApi, expectAccessible, startWorld, type World } from './browser.test-util.js';

const HEIR = { username: 'heir@playbase.test', password: 'heir-password-1' };

describe('web console: groups and ownership (browser)', () => {
  let w: World;
  let apiKey = '';
  const api = adminApi(() => w.url);
  beforeAll(async () => {
    w = await startWorld();
    apiKey = String((await api('POST', '/restv2/games', { name: 'Studio' })).apiKey);
    await api('POST', '/restv2/auth/users', { ...HEIR, country: 'FR' });
    await api('POST', `/restv2/auth/game/${apiKey}/collaborators`, {
      email: HEIR.username,
      groupNames: ['ReadOnly'],
    });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('a new group: a refused name at its field; then the keys set in the tree are saved', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/team`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'New group' }).click();
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('configurator', { exact: true }).selectOption('1');
    // A child key offers its parent's level until it has its own.
    const cloudCode = form.getByLabel('configurator.cloudCode', { exact: true });
    expect(await cloudCode.locator('option:checked').textContent()).toBe('as parent (read)');
    await cloudCode.selectOption('2');
    const name = form.getByLabel('Group name');
    await name.fill('bad name!');
    await form.getByRole('button', { name: 'Save group' }).click();
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'group form with an error');
    await name.fill('Scripters');
    await form.getByRole('button', { name: 'Save group' }).click();
    await page.getByRole('cell', { name: 'configurator 1, configurator.cloudCode 2' }).waitFor();
    const group = await api('GET', `/restv2/auth/game/${apiKey}/groups/Scripters`);
    expect(group.permissions).toEqual({ configurator: 1, 'configurator.cloudCode': 2 });
  });

  it('a group edited: a key set back to its parent’s level leaves the group', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'Edit Scripters' }).click();
    const form = page.getByRole('form', { name: 'Edit group Scripters' });
    await form.getByLabel('configurator.cloudCode', { exact: true }).selectOption('');
    await form.getByLabel('admin.audit', { exact: true }).selectOption('1');
    await form.getByRole('button', { name: 'Save group' }).click();
    await page.getByRole('cell', { name: /admin\.audit 1/ }).waitFor();
    const group = await api('GET', `/restv2/auth/game/${apiKey}/groups/Scripters`);
    expect(group.permissions).toEqual({ configurator: 1, 'admin.audit': 1 });
    await expectAccessible(page, 'team groups');
  });

  it('ownership handed to a collaborator; the former owner no longer sees the transfer', async () => {
    const { page } = w;
    await page.getByLabel('New owner').selectOption(HEIR.username);
    await page.getByRole('button', { name: 'Transfer ownership' }).click();
    await page.getByRole('heading', { name: 'Groups' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Transfer ownership' }).count()).toBe(0);
    const game = await api('GET', `/restv2/game/${apiKey}`);
    expect(game.owner).toBe(HEIR.username);
  });
});
