// The error reference (docs/errors.md), committed and checked for drift: made from the static catalogue alone,
// so writing or checking it loads no room and builds no server.
import { catalogue } from '../src/error-catalogue.js';

/** The error reference, from the static catalogue alone (no server is built). */
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
