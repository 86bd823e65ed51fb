// The browser tests' world: one Playbase process started as a user starts it (on the store of the run), one
// Debian Chromium driven by playwright-core (never a downloaded browser), and an axe-core check per page.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { basic, TEST_DATABASE_URL } from '../harness.js';
import { freePort, type Running, sharedPostgres, spawnPlaybase, stopAll, waitReady } from '../processes.js';

export const CHROMIUM = process.env.PLAYBASE_TEST_CHROMIUM || '/usr/bin/chromium';
export const ADMIN = { username: 'console-admin@playbase.test', password: 'console-password-1' };
/** The admin's portal credentials as request headers. */
export const ADMIN_AUTH = {
  authorization: basic(ADMIN.username, ADMIN.password),
  'content-type': 'application/json',
};

/** The admin's REST calls that set a flow up (a non-2xx answer fails the test); `url` is read at each call. */
export function adminApi(url: () => string) {
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: ADMIN_AUTH,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json() as Promise<Record<string, unknown>>;
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface World {
  url: string;
  server: Running;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-console-'));
  const db = TEST_DATABASE_URL ? await sharedPostgres(TEST_DATABASE_URL) : undefined;
  const server = spawnPlaybase({
    PORT: String(await freePort()),
    PLAYBASE_DATA_DIR: dataDir,
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    ...(db ? { DATABASE_URL: db.url } : {}),
  });
  await waitReady(server.url);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  // A step that does not happen fails naming its locator, well before the test's own timeout.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  // Destructive actions ask with confirm(): a person says yes.
  page.on('dialog', (d) => void d.accept());
  return {
    url: server.url,
    server,
    browser,
    page,
    async close() {
      await browser.close().catch(() => undefined);
      await stopAll([server]);
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  // page.evaluate is not subject to the console's Content-Security-Policy; an injected <script> would be.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run();
    return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]).map(
      (v) => ({
        id: v.id,
        impact: v.impact,
        targets: v.nodes.map((n) => n.target.join(' ')),
      }),
    );
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(JSON.stringify(serious), `axe on ${where}`).toBe('[]');
}
