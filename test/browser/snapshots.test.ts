// The console's snapshot tools in Debian's Chromium (issue 18): the full configuration difference between a
// snapshot and the working copy, or two snapshots (scripts shown as code), and a snapshot copied to a new game.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  ADMIN_AUTH,
  adminApi,
  expectAccessible,
  startWorld,
  type World,
} from './browser.test-util.js';

describe('web console: snapshot differences and copies (browser)', () => {
  let w: World;
  let apiKey = '';
  const api = adminApi(() => w.url);
  beforeAll(async () => {
    w = await startWorld();
    apiKey = String((await api('POST', '/restv2/games', { name: 'Versions' })).apiKey);
    const events = `/restv2/game/${apiKey}/config/~events`;
    await api('POST', events, { name: 'Win', shortCode: 'winRace', description: 'first' });
    await api('PUT', `/restv2/game/${apiKey}/config/~scripts/event/winRace`, { script: 'var a = 1;\n' });
    await api('POST', `/restv2/game/${apiKey}/admin/snapshots`, { description: 'Version 1' });
    await api('POST', events, { name: 'Lose', shortCode: 'loseRace', description: 'second' });
    await api('PUT', `/restv2/game/${apiKey}/config/~scripts/event/winRace`, { script: 'var a = 2;\n' });
    await api('POST', `/restv2/game/${apiKey}/admin/snapshots`, { description: 'Version 2' });
    await api('PUT', `/restv2/game/${apiKey}/config/~scripts/event/winRace`, { script: 'var a = 3;\n' });
  }, 120_000);
  /** Picks the option of the select labelled `label` whose text starts with `prefix`. */
  const choose = async (label: string, prefix: string) => {
    const select = w.page.getByLabel(label, { exact: true });
    const texts = await select.locator('option').allTextContents();
    const at = texts.findIndex((t) => t.startsWith(prefix));
    expect(at, `${label}: ${prefix}`).toBeGreaterThanOrEqual(0);
    await select.selectOption({ index: at });
  };
  afterAll(async () => {
    await w?.close();
  });

  it('a snapshot against the working copy: the configuration and the scripts, line by line', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/snapshots`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Compare configurations' }).waitFor();
    await choose('From', 'Version 1');
    await page.getByLabel('To', { exact: true }).selectOption('working');
    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByRole('region', { name: 'Configuration difference' });
    await diff.waitFor();
    const added = (await diff.locator('.added').allTextContents()).join('');
    const removed = (await diff.locator('.removed').allTextContents()).join('');
    expect(added).toContain('"shortCode": "loseRace"');
    expect(added).toContain('+ var a = 3;');
    expect(removed).toContain('- var a = 1;');
    await expectAccessible(page, 'snapshot difference');
  });

  it('two snapshots against each other; the list is searchable', async () => {
    const { page } = w;
    await page.getByLabel('Search snapshots').fill('Version 2');
    await expect.poll(() => page.getByRole('row', { name: /Version/ }).count()).toBe(1);
    await page.getByLabel('Search snapshots').fill('');
    await choose('From', 'Version 1');
    await choose('To', 'Version 2');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { name: /^Version 1 .*→ Version 2/ }).waitFor();
    const diff = page.getByRole('region', { name: 'Configuration difference' });
    expect((await diff.locator('.added').allTextContents()).join('')).toContain('+ var a = 2;');
  });

  it('a snapshot copied to a new game: the link leads to it, with the snapshot’s configuration', async () => {
    const { page } = w;
    await choose('Snapshot to copy', 'Version 1');
    await page.getByLabel('Copy to').selectOption({ label: 'A new game' });
    await page.getByLabel("New game's name").fill('Versions copy');
    await page.getByRole('button', { name: 'Copy snapshot' }).click();
    const link = page.getByRole('status').getByRole('link');
    await link.waitFor();
    const copied = (await link.textContent()) ?? '';
    expect(copied).toMatch(/^[a-z0-9]{20}$/);
    await expectAccessible(page, 'snapshot copied');
    const events = (await (
      await fetch(`${w.url}/restv2/game/${copied}/config/~events`, { headers: ADMIN_AUTH })
    ).json()) as { shortCode: string }[];
    expect(events.map((e) => e.shortCode)).toEqual(['winRace']);
    await link.click();
    await page.getByRole('heading', { name: 'Versions copy', level: 1 }).waitFor();
  });
});
