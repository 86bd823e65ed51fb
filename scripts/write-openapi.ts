// Writes docs/openapi.json and docs/errors.md from the running code, and the typed client's types from the first.
import { writeFileSync } from 'node:fs';
import { ensureTemplate } from '../test/template.js';
import {
  CLIENT_SCHEMA_PATH,
  renderClientSchema,
  renderErrorReference,
  renderOpenApi,
} from './generated-docs.js';

await ensureTemplate();
const openapi = await renderOpenApi();
writeFileSync('docs/openapi.json', openapi);
writeFileSync('docs/errors.md', renderErrorReference());
writeFileSync(CLIENT_SCHEMA_PATH, await renderClientSchema(openapi));
console.log(`wrote docs/openapi.json, docs/errors.md and ${CLIENT_SCHEMA_PATH}`);
