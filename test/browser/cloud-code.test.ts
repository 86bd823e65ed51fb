// The console's Cloud Code editor in Debian's Chromium (issue 18): the folder tree, a new event script, the
// server's syntax error marked at its line, the Spark API's completion, delete, the zip export, and an import
// whose files are accepted or refused one by one.
import { readFileSync } from 'node:fs';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  ADMIN_AUTH,
  adminApi,
  expectAccessible,
  startWorld,
  type World,
} from './browser.test-util.js';

describe('web console: Cloud Code (browser)', () => {
  let w: World;
  let apiKey = '';
  const api = adminApi(() => w.url);
  beforeAll(async () => {
    w = await startWorld();
    apiKey = String((await api('POST', '/restv2/games', { name: 'Coders' })).apiKey);
    await api('POST', `/restv2/game/${apiKey}/config/~events`, {
      name: 'Win',
      shortCode: 'winRace',
      description: '',
    });
    await api('PUT', `/restv2/game/${apiKey}/config/~scripts/modules/UTILS`, { script: 'var x = 1;\n' });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('signs in and opens the Cloud Code page: the folder tree shows the module', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/cloud-code`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Cloud Code', level: 1 }).waitFor();
    const tree = page.getByRole('navigation', { name: 'Scripts' });
    for (const folder of ['event', 'request', 'response', 'system', 'callbacks', 'modules'])
      await tree.getByRole('heading', { name: folder }).waitFor();
    await tree.getByRole('button', { name: 'modules/UTILS' }).waitFor();
    await expectAccessible(page, 'cloud code');
  });

  it('a new script for an unknown event → the error at Short code; for winRace → opened in the editor', async () => {
    const { page } = w;
    await page.getByLabel('Folder').selectOption('event');
    const shortCode = page.getByLabel('Short code', { exact: true });
    await shortCode.fill('noSuchEvent');
    await page.getByRole('button', { name: 'Create script' }).click();
    await expect
      .poll(() => page.locator('.error[role=alert]').first().textContent())
      .toContain('CONFIG_REFERENCE_INVALID');
    await shortCode.fill('winRace');
    await page.getByRole('button', { name: 'Create script' }).click();
    await page.getByRole('heading', { name: 'event/winRace' }).waitFor();
    await page.getByRole('textbox', { name: 'Source of event/winRace' }).waitFor();
    await expectAccessible(page, 'cloud code editor');
  });

  it('a syntax error: the server says where, the editor marks that line; fixed → saved', async () => {
    const { page } = w;
    const editor = page.getByRole('textbox', { name: 'Source of event/winRace' });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('var a = 1;\nvar b = ;\n');
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Line 2, column \d+: Unexpected token/).waitFor();
    await page.locator('.cm-lintRange-error').waitFor();
    await expectAccessible(page, 'cloud code with a syntax error');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('var player = Spark.getPlayer();\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved to the working copy (Preview).').waitFor();
    const saved = await api('GET', `/restv2/game/${apiKey}/config/~scripts/event/winRace`);
    expect(saved.script).toBe('var player = Spark.getPlayer();\n');
  });

  it('completion offers the Spark API from the typings, following the types of calls and variables', async () => {
    const { page } = w;
    await page.getByRole('textbox', { name: 'Source of event/winRace' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('player.getDis');
    const options = page.locator('.cm-tooltip-autocomplete');
    await options.getByText('getDisplayName').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.type('\nSpark.getGameDataService().getItem("T", "x").docu');
    await options.getByText('document').waitFor();
    await page.keyboard.press('Escape');
    // Unsaved edits: opening another script asks first (the world's dialog handler says yes).
    const asked: string[] = [];
    page.on('dialog', (d) => asked.push(d.message()));
    const tree = page.getByRole('navigation', { name: 'Scripts' });
    await tree.getByRole('button', { name: 'modules/UTILS' }).click();
    await page.getByRole('heading', { name: 'modules/UTILS' }).waitFor();
    expect(asked).toEqual(['Leave this script? Its changes are not saved.']);
    await tree.getByRole('button', { name: 'event/winRace' }).click();
    await page.getByRole('heading', { name: 'event/winRace' }).waitFor();
    expect(asked).toHaveLength(1);
  });

  it('delete asks, then the script leaves the tree', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'Delete script' }).click();
    const tree = page.getByRole('navigation', { name: 'Scripts' });
    await expect.poll(() => tree.getByRole('button', { name: 'event/winRace' }).count()).toBe(0);
  });

  it('the zip export downloads the scripts', async () => {
    const { page } = w;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download scripts (zip)' }).click(),
    ]);
    const files = unzipSync(new Uint8Array(readFileSync((await download.path()) as string)));
    expect(Object.keys(files)).toEqual(['modules/UTILS.js']);
    expect(strFromU8(files['modules/UTILS.js'] as Uint8Array)).toBe('var x = 1;\n');
  });

  it('an import shows each file and its difference; one accepted, one refused, a bad one listed', async () => {
    const { page } = w;
    const zip = zipSync({
      'modules/UTILS.js': strToU8('var x = 2;\n'),
      'modules/EXTRA.js': strToU8('var extra = true;\n'),
      'event/winRace.js': strToU8('Spark.setScriptData("won", true);\n'),
      'modules/BROKEN.js': strToU8('var = ;\n'),
    });
    await page.getByLabel('Scripts zip to import').setInputFiles({
      name: 'scripts.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from(zip),
    });
    await page.getByRole('heading', { name: 'Import of scripts.zip' }).waitFor();
    const diff = page.getByRole('region', { name: 'Difference of modules/UTILS.js' });
    expect(await diff.locator('.removed').textContent()).toContain('- var x = 1;');
    expect(await diff.locator('.added').textContent()).toContain('+ var x = 2;');
    await page.getByText(/modules\/BROKEN\.js: 1:\d+: Unexpected token/).waitFor();
    await expectAccessible(page, 'cloud code import');
    await page.getByLabel('Accept modules/EXTRA.js (added)').uncheck();
    await page.getByRole('button', { name: 'Apply import' }).click();
    await page.getByText('Imported: 1 added, 1 changed, 0 deleted.').waitFor();
    const tree = page.getByRole('navigation', { name: 'Scripts' });
    await tree.getByRole('button', { name: 'event/winRace' }).waitFor();
    const list = (await (
      await fetch(`${w.url}/restv2/game/${apiKey}/config/~scripts`, { headers: ADMIN_AUTH })
    ).json()) as { folder: string; shortCode: string }[];
    expect(list.map((s) => `${s.folder}/${s.shortCode}`)).toEqual(['event/winRace', 'modules/UTILS']);
    const utils = await api('GET', `/restv2/game/${apiKey}/config/~scripts/modules/UTILS`);
    expect(utils.script).toBe('var x = 2;\n');
  });
});
