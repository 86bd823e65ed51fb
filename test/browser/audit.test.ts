// The console's audit log in Debian's Chromium (issue 18): filters by area, user and time, each entry's
// before/after difference, and paging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, adminApi, expectAccessible, startWorld, type World } from './browser.test-util.js';

describe('web console: audit log (browser)', () => {
  let w: World;
  let apiKey = '';
  const api = adminApi(() => w.url);
  beforeAll(async () => {
    w = await startWorld();
    apiKey = String((await api('POST', '/restv2/games', { name: 'Audited' })).apiKey);
    await api('POST', `/restv2/game/${apiKey}/config/~events`, {
      name: 'Win',
      shortCode: 'winRace',
      description: '',
    });
    await api('POST', `/restv2/game/${apiKey}/admin/snapshots`, { description: 'One' });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('the config area: the event’s creation, and its before/after difference', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/audit`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('snapshot.create', { exact: true }).waitFor();
    await page.getByLabel('Area').selectOption('config');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByText('snapshot.create', { exact: true }).count()).toBe(0);
    const entry = page.locator('ol.audit > li', { hasText: 'config.post' });
    await entry.getByText('Difference').click();
    const diff = entry.getByRole('region', { name: /^Before and after of config\.post/ });
    expect((await diff.locator('.added').allTextContents()).join('')).toContain('"shortCode": "winRace"');
    await expectAccessible(page, 'audit log with a difference');
  });

  it('a user with no entries and a time before everything find nothing', async () => {
    const { page } = w;
    await page.getByLabel('Area').selectOption('');
    await page.getByLabel('User').fill('nobody@playbase.test');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('0 entries; page 1 of 1').waitFor();
    await page.getByLabel('User').fill(ADMIN.username);
    await page.getByLabel('To', { exact: true }).fill('2001-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('0 entries; page 1 of 1').waitFor();
    await page.getByLabel('To', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('snapshot.create', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
  });
});
