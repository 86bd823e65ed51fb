import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderErrorReference } from '../../scripts/error-reference.js';
import { CLIENT_SCHEMA_PATH, renderClientSchema, renderOpenApi } from '../../scripts/generated-docs.js';
import { startTestServer } from '../harness.js';

describe('generated documents', () => {
  it('docs/openapi.json matches the route schemas (run `npm run openapi` after changing routes)', async () => {
    expect(await renderOpenApi()).toBe(readFileSync('docs/openapi.json', 'utf8'));
  });

  it('docs/errors.md lists every catalogue code (run `npm run openapi` after adding errors)', () => {
    expect(renderErrorReference()).toBe(readFileSync('docs/errors.md', 'utf8'));
  });

  it('src/client/schema.ts matches docs/openapi.json (run `npm run openapi` after changing routes)', async () => {
    const types = await renderClientSchema(readFileSync('docs/openapi.json', 'utf8'));
    expect(types).toBe(readFileSync(CLIENT_SCHEMA_PATH, 'utf8'));
  });

  it('GET /openapi.json serves the OpenAPI 3 document; GET /docs serves a readable page', async () => {
    const server = await startTestServer();
    try {
      const doc = await server.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(doc.statusCode).toBe(200);
      expect(doc.json().openapi).toMatch(/^3\./);
      expect(Object.keys(doc.json().paths)).toContain('/healthz');
      const page = await server.app.inject({ method: 'GET', url: '/docs/' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
    } finally {
      await server.close();
    }
  });
});
