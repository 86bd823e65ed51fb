// A Playbase process (every role, settings from the environment) plus one GET served twice: without and with
// authentication, same schema and handler, so that the difference between the two is the authentication layer.
// A third probe times the authentication hook alone, in this process, on the credentials it is sent.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type AuthRequirement, authenticationHook } from '../src/auth/authenticate.js';
import { createAuthBackend } from '../src/auth/backend.js';
import type { Context } from '../src/context.js';
import type { App } from '../src/route/app.js';
import { createServer } from '../src/server.js';
import { loadSettings } from '../src/settings.js';

const GUARD: AuthRequirement = { permission: ['game', 1] };

function probes(app: App, ctx: Context): void {
  const schema = { params: Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 128 }) }) };
  const handler = async (request: { params: { apiKey: string } }) => ({
    apiKey: request.params.apiKey,
    ok: true,
  });
  app.get('/bench/open/:apiKey', { schema }, handler);
  app.get('/bench/auth/:apiKey', { schema, config: { auth: GUARD } }, handler);

  // The hook the platform layers give /bench/auth/{apiKey}, on its own backend (same store, same cache rules),
  // run `calls` times on this request's credentials; with ?open, an empty hook instead.
  const backend = createAuthBackend(ctx, undefined);
  const guarded = authenticationHook(backend, GUARD);
  // The open route has no authentication hook at all; this stands in for it, so that the promise around each
  // call is subtracted.
  const none: typeof guarded = (_request, _reply, done) => done();
  app.addHook('onClose', () => backend.close());
  const once = (hook: typeof guarded, request: FastifyRequest) =>
    new Promise<void>((resolve, reject) =>
      hook(request, undefined as never, (e) => (e ? reject(e) : resolve())),
    );
  app.get(
    '/bench/layer/:apiKey',
    {
      schema: {
        ...schema,
        querystring: Type.Object({
          calls: Type.Integer({ minimum: 1, maximum: 100_000 }),
          open: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (request) => {
      const { calls, open } = request.query as { calls: number; open?: boolean };
      const hook = open ? none : guarded;
      // Each call gets its own copy of the headers, as each request does: a string seen before would carry its
      // hash already, and a JWT's 500 characters are not free to hash.
      const fakes = Array.from(
        { length: calls },
        () =>
          ({
            headers: Object.fromEntries(
              Object.entries(request.headers).map(([k, v]) => [
                k,
                typeof v === 'string' ? Buffer.from(v).toString() : v,
              ]),
            ),
            query: {},
            params: { apiKey: Buffer.from(request.params.apiKey).toString() },
            ip: request.ip,
            routeOptions: { url: '/bench/auth/:apiKey', config: { auth: GUARD } },
            playbaseAuth: null,
          }) as unknown as FastifyRequest,
      );
      await once(hook, fakes[0] as FastifyRequest); // the first may have to ask the store
      const start = process.cpuUsage();
      for (const fake of fakes) await once(hook, fake);
      const used = process.cpuUsage(start);
      return { nanosPerCall: Math.round(((used.user + used.system) * 1000) / calls) };
    },
  );
}

const server = await createServer(loadSettings(), { extraRegistrars: [probes] });
await server.listen();
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
process.stdout.write('ready\n');
