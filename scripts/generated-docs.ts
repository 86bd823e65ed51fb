// Generated documents: the OpenAPI description and the error reference, both committed under docs/.
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
