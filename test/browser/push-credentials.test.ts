// The console's push credentials page in Debian's Chromium (issue 18): a key the API refuses shows its error at
// the field; valid APNs and FCM credentials are saved and only their identifiers shown; removal asks first.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../harness.js';
import { ADMIN, expectAccessible, startWorld, type World } from './browser.test-util.js';

const auth = { authorization: basic(ADMIN.username, ADMIN.password), 'content-type': 'application/json' };
const pem = (type: 'ec' | 'rsa') =>
  (type === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 })
  ).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

describe('web console: push credentials (browser)', () => {
  let w: World;
  let apiKey = '';
  beforeAll(async () => {
    w = await startWorld();
    const res = await fetch(`${w.url}/restv2/games`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Pushy' }),
    });
    apiKey = String(((await res.json()) as { apiKey: string }).apiKey);
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('a key that is not a P-256 key → the error; then APNs and FCM saved, identifiers shown', async () => {
    const { page } = w;
    await page.goto(`${w.url}/console/#/game/${apiKey}/push-credentials`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Push credentials', level: 1 }).waitFor();
    await page.getByLabel('Key ID').fill('ABC123DEFG');
    await page.getByLabel('Team ID').fill('DEF123GHIJ');
    await page.getByLabel('Topic (bundle id)').fill('com.example.game');
    await page.getByLabel('Key (.p8 PEM)').fill(pem('rsa'));
    await page.getByRole('button', { name: 'Save push credentials' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toContain('PUSH_CREDENTIALS_INVALID');
    await expectAccessible(page, 'push credentials with an error');
    await page.getByLabel('Key (.p8 PEM)').fill(pem('ec'));
    await page.getByLabel('Service account (JSON)').fill(
      JSON.stringify({
        project_id: 'pushy-game',
        client_email: 'push@pushy-game.iam.gserviceaccount.com',
        private_key: pem('rsa'),
        private_key_id: 'k1',
      }),
    );
    await page.getByRole('button', { name: 'Save push credentials' }).click();
    await page.getByText('key ABC123DEFG, team DEF123GHIJ, topic com.example.game').waitFor();
    await page.getByText('project pushy-game, push@pushy-game.iam.gserviceaccount.com').waitFor();
    expect(await page.getByText('BEGIN PRIVATE KEY').count()).toBe(0);
    await expectAccessible(page, 'push credentials');
  });

  it('removal asks, then nothing is configured', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'Remove push credentials' }).click();
    await page.getByText('Push credentials removed.').waitFor();
    const res = await fetch(`${w.url}/restv2/game/${apiKey}/config/~pushCredentials`, { headers: auth });
    expect(await res.json()).toEqual({});
  });
});
