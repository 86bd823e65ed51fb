// Generated documents: the OpenAPI description and the error reference, both committed under docs/, and the
// typed client's types (src/client/schema.ts), made from the OpenAPI description.
import openapiTS, { astToString } from 'openapi-typescript';
import { catalogue } from '../src/errors.js';
import { startTestServer } from '../test/harness.js';

export async function renderOpenApi(): Promise<string> {
  const server = await startTestServer({ PUBLIC_URL: 'http://localhost:8080' });
  try {
    await server.app.ready();
    return `${JSON.stringify(server.app.swagger(), null, 2)}\n`;
  } finally {
    await server.close();
  }
}

/** Call after renderOpenApi(): building the server loads every module's errors into the catalogue. */
export function renderErrorReference(): string {
  const rows = [...catalogue]
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((e) => `| \`${e.code}\` | ${e.status} | ${e.description.replaceAll('|', '\\|')} |`);
  return [
    '# Error reference',
    '',
    'Generated from the catalogue (`npm run openapi`); a test fails when this file drifts.',
    'Every error answers `{"message", "code", "requestId"}`, plus `details` (one entry per field) on `VALIDATION_FAILED`.',
    '',
    '| code | status | meaning |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

export const CLIENT_SCHEMA_PATH = 'src/client/schema.ts';

/** The typed client's types from an OpenAPI document's text (openapi-typescript). */
export async function renderClientSchema(openapiText: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(openapiText));
  return [
    '// The OpenAPI document as TypeScript types: generated from docs/openapi.json by `npm run openapi`',
    '// (openapi-typescript). Do not edit; a test fails when it differs from the document.',
    '',
    astToString(ast),
  ].join('\n');
}
