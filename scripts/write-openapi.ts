// Writes docs/openapi.json and docs/errors.md from the running code.
import { writeFileSync } from 'node:fs';
import { ensureTemplate } from '../test/template.js';
import { renderErrorReference, renderOpenApi } from './generated-docs.js';

await ensureTemplate();
writeFileSync('docs/openapi.json', await renderOpenApi());
writeFileSync('docs/errors.md', renderErrorReference());
console.log('wrote docs/openapi.json and docs/errors.md');
