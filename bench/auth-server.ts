// A Playbase process (every role, settings from the environment) plus one GET served twice: without and with
// authentication, same schema and handler, so that the difference between the two is the authentication layer.
import { Type } from 'typebox';
import type { App } from '../src/http/app.js';
import { createServer } from '../src/server.js';
import { loadSettings } from '../src/settings.js';

function probes(app: App): void {
  const schema = { params: Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) }) };
  const handler = async (request: { params: { apiKey: string } }) => ({
    apiKey: request.params.apiKey,
    ok: true,
  });
  app.get('/bench/open/:apiKey', { schema }, handler);
  app.get('/bench/auth/:apiKey', { schema, config: { auth: { permission: ['game', 1] } } }, handler);
}

const server = await createServer(loadSettings(), { extraRegistrars: [probes] });
await server.listen();
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
process.stdout.write('ready\n');
