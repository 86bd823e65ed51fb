// What a room declares its routes on: the app's type and a role's registrar. The vocabulary of a route
// declaration (this folder: the app type, its OpenAPI description, its policy) is shared by every room and by
// the HTTP layer that assembles them (src/http/), and imports none of them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { Context } from '../context.js';

// The HTTPS variant differs only in its raw server type; routes never touch the raw server.
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A role's routes: registered on the app when the process runs that role. */
export type RoleRegistrar = (app: App, ctx: Context) => Promise<void> | void;
