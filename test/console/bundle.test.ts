// The web console ships prebuilt in console/dist (docs/console.md): the committed bundle must come from the
// sources beside it. `npm run console:build` rebuilds it and records the sources' hash.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleSourceHash } from '../../scripts/console-hash.js';

describe('console bundle', () => {
  it('console/dist was built from the current console/ and src/client sources (else: npm run console:build)', () => {
    const recorded = readFileSync('console/dist/source-hash.txt', 'utf8').trim();
    expect(recorded, 'console/dist is stale: run npm run console:build and commit console/dist').toBe(
      consoleSourceHash(process.cwd()),
    );
  });

  it('index.html names a main script and its source map ships beside it', () => {
    const html = readFileSync('console/dist/index.html', 'utf8');
    const main = /src="\/console\/(assets\/main-[\w-]+\.js)"/.exec(html)?.[1];
    expect(main).toBeDefined();
    expect(existsSync(`console/dist/${main}.map`)).toBe(true);
  });
});
