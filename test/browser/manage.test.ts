// Manage screens and the test harness in Debian's Chromium (issue 19): a screen imported in the original's export
// format runs its form snippet on the nosql server and shows the rendered result; markup that tries to run script
// shows as text; a library screen installs; the snippet editor runs and previews; the harness registers a player
// and logs an event whose script's scriptData and log line show in the inline trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../harness.js';
import { ADMIN, expectAccessible, startWorld, type World } from './browser.test-util.js';

const EXPORT = {
  displayName: 'Old game',
  shortCode: 'old',
  screens: {
    greeter: {
      name: 'Greeter',
      html: `<gs-title-block title="Greetings"><gs-form snippet="hello?n=41" target="out">
<label for="who">Who</label><input id="who" name="who"><gs-submit>Greet</gs-submit></gs-form>
<gs-placeholder id="out"></gs-placeholder></gs-title-block>
<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2">`,
      allowedGroups: [],
    },
  },
  snippets: {
    hello: {
      name: 'Hello',
      script: `var d = Spark.getData().scriptData;
Spark.getLog().info("greeted " + d.who);
Spark.setScriptData("greeting", "Hello " + d.who);
Spark.setScriptData("n", Number(d.n));`,
      template: '<p class="greeting">{{greeting}}, answer {{math n "+" 1}}</p>{{{greeting}}}',
      allowedGroups: [],
    },
  },
  queries: { total_requests: { name: 'Total requests', esRules: { and: [] } } },
};

describe('manage screens and test harness (browser)', () => {
  let w: World;
  let apiKey = '';
  // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${w.url}${path}`, {
      method,
      headers: {
        authorization: basic(ADMIN.username, ADMIN.password),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const pwned = () => w.page.evaluate('window.pwned === undefined ? "no" : String(window.pwned)');

  beforeAll(async () => {
    w = await startWorld();
    apiKey = (await api('POST', '/restv2/games', { name: 'Screens game' })).apiKey;
    const { page } = w;
    await page.goto(`${w.url}/console/`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('imports the original export; the form snippet runs and renders into its placeholder; script shows as text', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/manage`);
    await page.getByRole('heading', { name: 'Manage screens', level: 1 }).waitFor();
    await expectAccessible(page, 'manage screens');
    await page.getByLabel('Export file contents (JSON)').fill(JSON.stringify(EXPORT));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByRole('status').last().textContent()).toContain('2 created, 0 replaced');
    expect(await page.getByRole('status').last().textContent()).toContain(
      'query total_requests: a chart query',
    );
    await page.getByRole('button', { name: 'Open Greeter' }).click();
    await page.getByRole('heading', { name: 'Greeter', level: 1 }).waitFor();
    // The refused markup is on the page as text, and none of it ran.
    const screen = page.locator('.gs-screen');
    await expect.poll(() => screen.textContent()).toContain('<script>window.pwned = 1</script>');
    expect(await screen.textContent()).toContain('onerror="window.pwned = 2"');
    expect(await screen.locator('script, img').count()).toBe(0);
    // scriptData that carries markup is escaped ({{x}}), and sanitized where the template does not escape it.
    await page.getByLabel('Who').fill('Ada<img src=x onerror="window.pwned=3">');
    await page.getByRole('button', { name: 'Greet' }).click();
    const greeting = screen.locator('p.greeting');
    await expect
      .poll(() => greeting.textContent())
      .toBe('Hello Ada<img src=x onerror="window.pwned=3">, answer 42');
    expect(await screen.locator('img, script, [onerror]').count()).toBe(0);
    expect(await pwned()).toBe('no');
    await expectAccessible(page, 'a screen with a rendered snippet');
  });

  it('installs the Script Log Viewer from the library and sees the snippet run logged', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'Back to screens' }).click();
    await page.getByRole('button', { name: 'Install Script Log Viewer' }).click();
    await expect
      .poll(() => page.getByRole('status').last().textContent())
      .toContain('Script Log Viewer: 2 created');
    await page.getByRole('button', { name: 'Open Script Log Viewer' }).click();
    await page.getByLabel('Script (folder/shortCode)').fill('snippets/hello');
    await page.getByRole('button', { name: 'Show log' }).click();
    await expect.poll(() => page.locator('.gs-screen table').textContent()).toContain('greeted Ada');
    await expectAccessible(page, 'script log viewer');
  });

  it('the snippet editor saves and runs with its test input, and previews from edited scriptData', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'Back to screens' }).click();
    await page.getByRole('button', { name: 'Edit hello' }).click();
    await page.getByLabel('Test input (scriptData, JSON)').fill('{"who": "Ed", "n": 1}');
    await page.getByRole('button', { name: 'Save and run' }).click();
    const preview = page.getByRole('region', { name: 'Snippet preview' });
    await expect.poll(() => preview.locator('p.greeting').textContent()).toBe('Hello Ed, answer 2');
    expect(await page.getByRole('region', { name: 'Trace' }).textContent()).toContain('greeted Ed');
    await page.getByLabel('Result scriptData (JSON, editable)').fill('{"greeting": "Hi", "n": 9}');
    await expect.poll(() => preview.locator('p.greeting').textContent()).toBe('Hi, answer 10');
    // The original's helpers, re-rendered as the template and the scriptData change (the script does not run).
    await page
      .getByLabel('Template (Handlebars and GSML)')
      .fill(
        '{{#compare n ">" 5}}<p class="size">big {{json tags}} {{get "a" obj}}{{#each tags}} [{{@index}}:{{this}}]{{/each}}</p>{{else}}<p class="size">small</p>{{/compare}}',
      );
    const result = page.getByLabel('Result scriptData (JSON, editable)');
    await result.fill('{"n": 9, "tags": ["x", "y"], "obj": {"a": "A"}}');
    await expect.poll(() => preview.locator('p.size').textContent()).toBe('big ["x","y"] A [0:x] [1:y]');
    await result.fill('{"n": 1}');
    await expect.poll(() => preview.locator('p.size').textContent()).toBe('small');
    await expectAccessible(page, 'snippet editor');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('harness: registers a player, logs an event; the trace shows the script, its scriptData and its log line', async () => {
    const base = `/restv2/game/${apiKey}/config`;
    await api('POST', `${base}/~events`, {
      shortCode: 'score',
      name: 'Score',
      description: 'A score',
      '~attributes': [{ shortCode: 'SCORE', name: 'Score', dataType: 'int', defaultAggregationType: 'MAX' }],
    });
    await api('PUT', `${base}/~scripts/event/score`, {
      script:
        'Spark.setScriptData("doubled", Spark.getData().SCORE * 2); Spark.getLog().info("scored " + Spark.getData().SCORE);',
    });
    const { secret } = await api('POST', `${base}/~credentials`, { name: 'harness' });
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/harness`);
    await page.getByRole('heading', { name: 'Test harness', level: 1 }).waitFor();
    await page.getByLabel('Credential secret').fill(secret);
    await page.getByRole('button', { name: 'RegistrationRequest' }).click();
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.locator('.harness-log');
    await expect.poll(() => log.locator('.log-response').count()).toBe(1);
    expect(await page.locator('main').textContent()).toMatch(/Current player: [0-9a-f]{24}/);
    await page.getByRole('button', { name: 'LogEventRequest score' }).click();
    const request = page.getByLabel('Request JSON (one request or an array)');
    await request.fill(JSON.stringify({ '@class': '.LogEventRequest', eventKey: 'score', SCORE: 21 }));
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => log.locator('.log-response').count()).toBe(2);
    const last = log.locator('.log-response').last();
    expect(await last.textContent()).toContain('"doubled": 42');
    expect(await last.locator('.trace').textContent()).toContain('event/score');
    expect(await last.locator('.trace').textContent()).toContain('scored 21');
    // A saved scenario is kept in localStorage with the requests only.
    await page.getByLabel('Scenario name').fill('score twice');
    await page.getByRole('button', { name: 'Save as scenario' }).click();
    await page.getByRole('link', { name: 'Export scenarios' }).waitFor();
    const stored = String(await page.evaluate('JSON.stringify(localStorage)'));
    expect(stored).toContain('score twice');
    expect(stored).not.toContain(secret);
    await expectAccessible(page, 'test harness');
  });
  it('the Player Management library screen finds the harness player and credits its currency', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/manage`);
    await page.getByRole('button', { name: 'Install Player Management' }).click();
    await page.getByRole('button', { name: 'Open Player Management' }).click();
    await page.getByLabel('User name starts with').fill('tester');
    await page.getByRole('button', { name: 'Search players' }).click();
    await page.getByRole('button', { name: 'Open tester1' }).click();
    await page.getByLabel('Credit currency 1 (negative debits)').fill('5');
    await page.getByRole('button', { name: 'Apply' }).click();
    const screen = page.locator('.gs-screen');
    await expect.poll(() => screen.textContent()).toContain('Balance 1 changed by 5');
    expect(await screen.locator('dd').allTextContents()).toContain('Tester');
    await expectAccessible(page, 'player management');
  });

  it('a collaborator sees only the screens and snippets of their groups; a snippet of other groups shows nothing', async () => {
    const support = { username: 'support@playbase.test', password: 'support-password-1' };
    await api('POST', '/restv2/auth/users', { ...support, country: 'GB' });
    const auth = `/restv2/auth/game/${apiKey}`;
    await api('POST', `${auth}/groups`, {
      name: 'Support',
      permissions: { game: 1, manage: 1, 'nosql.snippets': 2 },
    });
    await api('POST', `${auth}/collaborators`, { email: support.username, groupNames: ['Support'] });
    const manage = `/restv2/game/${apiKey}/manage`;
    const snippet = (shortCode: string, groups: string[]) =>
      api('POST', `${manage}/snippets`, {
        shortCode,
        name: shortCode,
        script: `Spark.setScriptData("who", "${shortCode}");`,
        template: '<p class="ran">ran {{who}}</p>',
        groups,
      });
    await snippet('for_support', ['Support']);
    await snippet('for_admins', ['gameAdmin']);
    await api('POST', `${manage}/screens`, {
      shortCode: 'desk',
      name: 'Support desk',
      template:
        '<gs-snippet snippet="for_support"></gs-snippet><gs-snippet snippet="for_admins"></gs-snippet>',
      groups: ['Support'],
    });
    await api('POST', `${manage}/screens`, {
      shortCode: 'admins',
      name: 'Admins only',
      groups: ['gameAdmin'],
    });
    const { page } = w;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').fill(support.username);
    await page.getByLabel('Password').fill(support.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
    await page.goto(`${w.url}/console/#/game/${apiKey}/manage`);
    await page.getByRole('heading', { name: 'Manage screens', level: 1 }).waitFor();
    const screens = page.getByRole('region', { name: 'Screens' });
    await expect.poll(() => screens.textContent()).toContain('Support desk');
    expect(await screens.textContent()).not.toContain('Admins only');
    // A screen without groups is everyone's.
    expect(await screens.textContent()).toContain('Greeter');
    // Read only on manage: no New, Edit or Delete, no import.
    expect(await page.getByRole('button', { name: 'New screen' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Open Support desk' }).click();
    await expect.poll(() => page.locator('.gs-screen p.ran').allTextContents()).toEqual(['ran for_support']);
    await expectAccessible(page, 'a screen for a support group');
  });
});
