// The web console (issue 18): the prebuilt single-page application under /console, and a landing page at /
// that links to it. Both are static files and outside the OpenAPI document; the console itself calls only the
// public REST API. The bundle is built by `npm run console:build` into console/dist (committed; a test fails
// when console/ sources change without a rebuild) and copied to dist/console by `npm run build`.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from '../route/app.js';

const here = dirname(fileURLToPath(import.meta.url));

/** dist/console beside the built server, or console/dist of the repository when running from src/. */
export function consoleBundleDir(): string | undefined {
  const candidates = [join(here, '..', 'console'), join(here, '..', '..', 'console', 'dist')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** The console's pages: scripts and styles only from this origin; API calls to this origin. */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const LANDING = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Playbase</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<main><h1>Playbase</h1>
<p>A self-hostable game backend.</p>
<ul>
<li><a href="/console/">Web console</a>: games, configuration, snapshots, team, audit log</li>
<li><a href="/docs">API documentation</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/readyz">Readiness</a></li>
</ul></main></body></html>
`;

export async function registerConsole(app: App): Promise<void> {
  app.get('/', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(LANDING),
  );
  const root = consoleBundleDir();
  if (!root) {
    app.log.warn('the console bundle is missing (npm run console:build): /console answers 404');
    return;
  }
  app.get('/console', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) =>
    reply.redirect('/console/', 301),
  );
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    schemaHide: true,
    cacheControl: false,
    logLevel: 'warn',
    // Hashed asset names never change content; index.html is revalidated so a new release shows at once.
    setHeaders(res, path) {
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader(
        'cache-control',
        path.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
    },
  });
}
