// Routes on a collection's documents: find, explain, count, insert, save, update, remove, aggregate. Each
// resolves the collection and hands the body to its core (document-core.ts), which runs on a compute thread
// when the body is large.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TaskInput } from '../compute/tasks.js';
import type { App } from '../http/app.js';
import { JsonText } from '../http/json-body.js';
import type { BodyInput } from './document-core.js';
import {
  CollectionParams,
  collectionFor,
  NOSQL_BODY_LIMIT,
  type NosqlEnv,
  READ,
  run,
  tags,
  WRITE,
} from './route-support.js';
import type { Scope } from './scope.js';

const body = (description: string) => Type.Unknown({ description });

/** The core's view of a request body: still text when large (its size then sends the work to a thread). */
function bodyOf(raw: unknown): { body: BodyInput; size: number } {
  if (raw instanceof JsonText) return { body: { text: raw.text }, size: raw.text.length };
  return { body: { value: raw }, size: 0 };
}

const sendJson = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

export function registerDocumentRoutes(app: App, env: NosqlEnv): void {
  const base = '/restv2/game/:gameApiKey/mongo/collection/:collectionName';
  const route = (summary: string, config: typeof READ, description: string) => ({
    config: { ...config, jsonText: true },
    bodyLimit: NOSQL_BODY_LIMIT,
    schema: { tags, summary, params: CollectionParams, body: body(description) },
  });
  const { compute, clock } = env.ctx;
  /** Runs a verb's core where its size says, with database errors translated. */
  const core = <N extends 'find' | 'explain' | 'count' | 'insert' | 'save' | 'remove' | 'aggregate'>(
    name: N,
    scope: Scope,
    request: FastifyRequest,
    size?: number,
  ) => {
    const input = bodyOf(request.body);
    const op = { scope, body: input.body, now: clock() };
    return run(env, scope, () => compute.run(name, op as TaskInput<N>, size ?? input.size, env.pool));
  };

  app.post(
    `${base}/find`,
    route(
      'Find documents',
      READ,
      '{query, fields, sort, skip, limit}, all optional; limit absent or 0 means 10000',
    ),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      return sendJson(reply, await core('find', scope, request));
    },
  );

  app.post(
    `${base}/explain`,
    route('Explain a find: the PostgreSQL plan', READ, '{query, fields, sort, skip, limit}, all optional'),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      return core('explain', scope, request);
    },
  );

  app.post(`${base}/count`, route('Count matching documents', READ, '{query}, optional'), async (request) => {
    const { scope } = await collectionFor(env, request, 'COUNT');
    return { count: await core('count', scope, request) };
  });

  app.post(
    `${base}/insert`,
    route('Insert documents (an array, or one document)', WRITE, 'an array of documents, or one document'),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'INSERT');
      return sendJson(reply, await core('insert', scope, request));
    },
  );

  app.post(
    `${base}/save`,
    route('Save a document: insert it, or replace the one with its _id', WRITE, 'one document'),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'INSERT', 'UPDATE');
      return sendJson(reply, await core('save', scope, request));
    },
  );

  app.post(
    `${base}/update`,
    route('Update documents', WRITE, '{query, update, multi = false, upsert = false}'),
    async (request) => {
      // An upsert also needs INSERT: the core checks it once the body is read.
      const { scope, collection } = await collectionFor(env, request, 'UPDATE');
      const input = bodyOf(request.body);
      const op = { scope, collection, body: input.body, now: clock() };
      return run(env, scope, () => compute.run('update', op, input.size, env.pool));
    },
  );

  app.post(
    `${base}/remove`,
    route('Remove matching documents', WRITE, '{query}; {"query": {}} removes all'),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'REMOVE');
      return { deletedCount: await core('remove', scope, request), message: 'OK' };
    },
  );

  app.post(
    `${base}/aggregate`,
    route('Run an aggregation pipeline', READ, 'the pipeline: an array of stages'),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'AGGREGATE');
      // Always on a compute thread: the stages after the leading ones run over documents of any size.
      return sendJson(reply, await core('aggregate', scope, request, Number.POSITIVE_INFINITY));
    },
  );
}
