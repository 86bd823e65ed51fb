// Generated documents: the OpenAPI description, committed under docs/, and the typed client's types
// (src/client/schema.ts), made from it. The error reference is scripts/error-reference.ts (no server needed).
import openapiTS, { astToString } from 'openapi-typescript';
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
