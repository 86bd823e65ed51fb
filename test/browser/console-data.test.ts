// The Data Explorer driven in Debian's Chromium (issue 19, item 1): a runtime collection made, documents
// inserted, a query checked as it is typed, found, edited in place, an index created and explain seen to use
// it, a remove whose confirmation states the count; the data service's query builder; an export link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../harness.js';
import { ADMIN, expectAccessible, startWorld, type World } from './browser.test-util.js';
import { type Game, openGamePage, seedGame } from './runtime-data.test-util.js';

describe('Data Explorer (browser)', () => {
  let w: World;
  let g: Game;
  beforeAll(async () => {
    w = await startWorld();
    g = await seedGame(w.url, 'Data game');
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('collections are grouped as the server lists them; a runtime collection is made and documents inserted', async () => {
    const { page } = w;
    await openGamePage(page, w.url, g.apiKey, 'data');
    await page.getByRole('heading', { name: 'Data Explorer', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Collections' });
    for (const group of ['System', 'Leaderboards', 'Running Totals'])
      await nav.getByRole('heading', { name: group }).waitFor();
    await nav.getByRole('button', { name: 'TOP-leaderboard' }).click();
    // A leaderboard mirror allows FIND, COUNT, INDEX, AGGREGATE, STATS: no Insert, Update or Remove.
    await page.getByRole('button', { name: 'Find' }).waitFor();
    expect(await page.getByRole('button', { name: 'Insert' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove matching' }).count()).toBe(0);
    await expectAccessible(page, 'data explorer');

    await page.getByLabel('Collection name').fill('inventory');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await nav.getByRole('heading', { name: 'Runtime' }).waitFor();
    await nav.getByRole('button', { name: 'script.inventory' }).click();
    // 3000 documents through the API (explain needs enough rows for the planner to prefer an index), then
    // three more through the page.
    const jwt = await fetch(`${w.url}/restv2/auth/game/${g.apiKey}/jwt/nosql`, {
      headers: { authorization: basic(ADMIN.username, ADMIN.password) },
    }).then(async (r) => ((await r.json()) as { 'X-SVC-JWT': string })['X-SVC-JWT']);
    const seeded = await fetch(
      `${w.url}/preview/restv2/game/${g.apiKey}/mongo/collection/script.inventory/insert`,
      {
        method: 'POST',
        headers: { 'x-svc-jwt': jwt, 'content-type': 'application/json' },
        body: JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ item: `thing${i}`, level: i }))),
      },
    );
    expect(seeded.status).toBe(200);
    const documentField = page.getByLabel('Document', { exact: true });
    await documentField.fill('[{"item": "sword", "level": 5000}, {"kind": "junk"}, {"kind": "junk"}');
    await expect.poll(() => documentField.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Insert' }).isDisabled()).toBe(true);
    await documentField.fill(
      '[{"item": "sword", "level": 5000}, {"kind": "junk"}, {"kind": "junk"}, {"kind": "junk"}]',
    );
    await page.getByRole('button', { name: 'Insert' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Inserted 4 documents');
  });

  it('a query is checked as it is typed; Find shows a table and a tree; a document is edited in place', async () => {
    const { page } = w;
    const query = page.getByLabel('Query', { exact: true });
    await query.fill('{"item": "sword"');
    await expect.poll(() => query.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Find' }).isDisabled()).toBe(true);
    await query.fill('{"item": "sword"}');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('cell', { name: '5000', exact: true }).waitFor();
    await expectAccessible(page, 'data explorer results');
    await page.getByRole('button', { name: 'Show as tree' }).click();
    await page.locator('.tree').getByText('"sword"').waitFor();
    await page.getByRole('button', { name: 'Show as table' }).click();

    await page.getByRole('button', { name: /^Edit ObjectId/ }).click();
    const edited = page.getByLabel('Edited document');
    const doc = JSON.parse(await edited.inputValue()) as Record<string, unknown>;
    await edited.fill(JSON.stringify({ ...doc, level: 5001, sharp: true }));
    await page.getByRole('button', { name: 'Save document' }).click();
    await page.getByRole('cell', { name: '5001', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'true', exact: true }).waitFor();

    // Paging past the first page: 3000 things at 20 a page.
    await query.fill('{"level": {"$lt": 3000}}');
    await page.getByLabel('Sort').fill('{"level": 1}');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('cell', { name: '"thing19"', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('cell', { name: '"thing20"', exact: true }).waitFor();
    expect(await page.getByLabel('Skip').inputValue()).toBe('20');
  });

  it('an index is created and explain says it is used; remove states how many documents match', async () => {
    const { page } = w;
    await page.getByLabel('Index name').fill('level_1');
    await page.getByLabel('Index keys').fill('{"level": 1}');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('cell', { name: 'level_1', exact: true }).waitFor();
    await page.getByLabel('Sort').fill('');
    await page.getByLabel('Skip').fill('0');
    await page.getByLabel('Query', { exact: true }).fill('{"level": 1234}');
    await page.getByRole('button', { name: 'Explain' }).click();
    const explain = page.getByRole('region', { name: 'Explain' });
    await expect.poll(() => explain.textContent()).toContain('Indexes used: level_1');
    expect(await explain.textContent()).toMatch(/level_1/);

    await page.getByLabel('Query', { exact: true }).fill('{"kind": "junk"}');
    await page.getByRole('button', { name: 'Count' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('3 documents match');
    const asked: string[] = [];
    page.once('dialog', (d) => asked.push(d.message()));
    await page.getByRole('button', { name: 'Remove matching' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Removed 3 documents');
    expect(asked).toEqual(['Remove 3 documents matching {"kind": "junk"}?']);
  });

  it('the data service: items put, then found with the query builder; an export gives a download link', async () => {
    const { page } = w;
    await page.getByRole('radio', { name: 'Data service' }).check();
    await page.getByLabel('Data type').waitFor();
    for (const [id, data] of [
      ['p1', '{"level": 5, "guild": "red"}'],
      ['p2', '{"level": 9, "guild": "blue"}'],
    ] as const) {
      await page.getByLabel('Item id').fill(id);
      await page.getByLabel('Item data').fill(data);
      await page.getByRole('button', { name: 'Put item' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`Saved ${id}: version 1`);
    }
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Rule 1 field').selectOption('level');
    await page.getByLabel('Rule 1 operator').selectOption('GT');
    await page.getByLabel('Rule 1 value').fill('6');
    await page.getByRole('button', { name: 'Query items' }).click();
    await page.getByRole('button', { name: 'p2', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'p1', exact: true }).count()).toBe(0);
    await expectAccessible(page, 'data service');

    await page.getByRole('button', { name: 'Export collections' }).click();
    const link = page.getByRole('link', { name: 'Download Collections export (preview)' });
    const res = await fetch((await link.getAttribute('href')) ?? '');
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);

    // Live runs the published configuration: nothing is published, so no leaderboard collection there.
    await page.getByRole('radio', { name: 'Collections' }).check();
    await page.getByRole('radio', { name: 'Live' }).check();
    const nav = page.getByRole('navigation', { name: 'Collections' });
    await nav.getByRole('button', { name: 'player', exact: true }).waitFor();
    await nav.getByRole('button', { name: 'TOP-leaderboard' }).waitFor({ state: 'detached' });
    await expectAccessible(page, 'data explorer, live');
  });
});
