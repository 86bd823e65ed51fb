// Writes docs/errors.md from the static catalogue, then docs/openapi.json from the running code and the typed
// client's types from it.
import { writeFileSync } from 'node:fs';
import { ensureTemplate } from '../test/template.js';
import { renderErrorReference } from './error-reference.js';
import { CLIENT_SCHEMA_PATH, renderClientSchema, renderOpenApi } from './generated-docs.js';

writeFileSync('docs/errors.md', renderErrorReference());
await ensureTemplate();
const openapi = await renderOpenApi();
writeFileSync('docs/openapi.json', openapi);
writeFileSync(CLIENT_SCHEMA_PATH, await renderClientSchema(openapi));
console.log(`wrote docs/errors.md, docs/openapi.json and ${CLIENT_SCHEMA_PATH}`);
