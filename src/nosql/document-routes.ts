// Routes on a collection's documents: find, explain, count, insert, save, update, remove, aggregate. Each
// resolves the collection and hands the body to its core (document-core.ts), which runs on a compute thread
// when the body is large.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { JsonText } from '../http/json-body.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import type { DocumentInput } from './compute-tasks.js';
import type { BodyInput } from './document-core.js';
import * as schemas from './route-schemas.js';
import {
  CollectionParams,
  collectionFor,
  NOSQL_BODY_LIMIT,
  type NosqlEnv,
  opId,
  READ,
  tags,
  WRITE,
} from './route-support.js';
import type { Scope } from './scope.js';

/** The core's view of a request body: still text when large (its size then sends the work to a thread). */
function bodyOf(raw: unknown): { body: BodyInput; size: number } {
  if (raw instanceof JsonText) return { body: { text: raw.text }, size: raw.text.length };
  return { body: { value: raw }, size: 0 };
}

const sendJson = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

export function registerDocumentRoutes(app: App, env: NosqlEnv): void {
  const base = '/restv2/game/:gameApiKey/mongo/collection/:collectionName';
  // The cores check their bodies (query errors, NOSQL_BAD_BODY): the schemas are for the document only.
  const route = (name: string, summary: string, config: typeof READ, body: TSchema, answer: TSchema) => ({
    config: { ...config, jsonText: true, ...documented({ body, response: { 200: answer } }) },
    bodyLimit: NOSQL_BODY_LIMIT,
    schema: { tags, operationId: opId(env, name), summary, params: CollectionParams, body: Type.Unknown() },
  });
  const { clock } = env.ctx;
  /** Runs a verb's core where its size says (its database errors translated by the core). */
  const core = <
    N extends 'find' | 'explain' | 'count' | 'insert' | 'save' | 'remove' | 'aggregate' | 'distinct',
  >(
    name: N,
    scope: Scope,
    request: FastifyRequest,
    size?: number,
  ) => {
    const input = bodyOf(request.body);
    const op = { scope, body: input.body, now: clock() };
    return env.core.runDocuments(name, op as DocumentInput<N>, size ?? input.size);
  };

  app.post(
    `${base}/find`,
    route('FindDocuments', 'Find documents', READ, schemas.FindBody, schemas.FindAnswer),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      return sendJson(reply, await core('find', scope, request));
    },
  );

  app.post(
    `${base}/explain`,
    route(
      'ExplainFind',
      'Explain a find: the PostgreSQL plan',
      READ,
      schemas.FindBody,
      schemas.ExplainAnswer,
    ),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      return core('explain', scope, request);
    },
  );

  app.post(
    `${base}/count`,
    route('CountDocuments', 'Count matching documents', READ, schemas.CountBody, schemas.CountAnswer),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'COUNT');
      return { count: await core('count', scope, request) };
    },
  );

  app.post(
    `${base}/insert`,
    route(
      'InsertDocuments',
      'Insert documents (an array, or one document)',
      WRITE,
      schemas.InsertBody,
      schemas.InsertAnswer,
    ),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'INSERT');
      return sendJson(reply, await core('insert', scope, request));
    },
  );

  app.post(
    `${base}/save`,
    route(
      'SaveDocument',
      'Save a document: insert it, or replace the one with its _id',
      WRITE,
      schemas.SaveBody,
      schemas.SaveAnswer,
    ),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'INSERT', 'UPDATE');
      return sendJson(reply, await core('save', scope, request));
    },
  );

  app.post(
    `${base}/update`,
    route('UpdateDocuments', 'Update documents', WRITE, schemas.UpdateBody, schemas.UpdateAnswer),
    async (request) => {
      // An upsert also needs INSERT: the core checks it once the body is read.
      const { scope, collection } = await collectionFor(env, request, 'UPDATE');
      const input = bodyOf(request.body);
      const op = { scope, collection, body: input.body, now: clock() };
      return env.core.runDocuments('update', op, input.size);
    },
  );

  app.post(
    `${base}/remove`,
    route(
      'RemoveDocuments',
      'Remove matching documents; {"query": {}} removes all',
      WRITE,
      schemas.RemoveBody,
      schemas.RemoveAnswer,
    ),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'REMOVE');
      return { deletedCount: await core('remove', scope, request), message: 'OK' };
    },
  );

  app.post(
    `${base}/aggregate`,
    route('Aggregate', 'Run an aggregation pipeline', READ, schemas.AggregateBody, schemas.AggregateAnswer),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'AGGREGATE');
      const op = { scope, body: bodyOf(request.body).body, now: clock() };
      return sendJson(reply, await env.core.aggregate(op));
    },
  );

  app.post(
    `${base}/findAndModify`,
    route(
      'FindAndModify',
      'Update or remove the first matching document, answering it before or after',
      WRITE,
      schemas.FindAndModifyBody,
      schemas.FindAndModifyAnswer,
    ),
    async (request, reply) => {
      // UPDATE or REMOVE (and INSERT for an upsert): the core checks them once the body is read.
      const { scope, collection } = await collectionFor(env, request);
      const input = bodyOf(request.body);
      const op = { scope, collection, body: input.body, now: clock() };
      return sendJson(reply, await env.core.runDocuments('findAndModify', op, input.size));
    },
  );

  app.post(
    `${base}/distinct`,
    route('Distinct', 'The different values of a field', READ, schemas.DistinctBody, schemas.DistinctAnswer),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      // Always on a compute thread: it reads every matching document.
      return sendJson(reply, await core('distinct', scope, request, Number.POSITIVE_INFINITY));
    },
  );
}
