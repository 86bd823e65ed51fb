// Routes on a collection's documents: find, explain, count, insert, save, update, remove, aggregate.
import { type TSchema, Type } from 'typebox';
import type { App } from '../http/app.js';
import { documented } from '../http/openapi.js';
import { parsePipeline } from '../query/aggregate.js';
import { parseFilter } from '../query/filter.js';
import { type FindOptions, parseFindOptions } from '../query/find-options.js';
import { applyProjection, parseProjection } from '../query/projection.js';
import { parseUpdate } from '../query/update.js';
import { type Doc, toWire } from '../query/values.js';
import { aggregateDocuments } from './aggregate-documents.js';
import { insertDocuments, removeDocuments, saveDocument } from './documents.js';
import { nosqlErrors } from './errors.js';
import { indexNamesByPgName } from './indexes.js';
import { countMatches, explainRead, type ReadPlan, readBatches } from './read.js';
import * as schemas from './route-schemas.js';
import {
  CollectionParams,
  collectionFor,
  NOSQL_BODY_LIMIT,
  type NosqlEnv,
  opId,
  READ,
  run,
  sendArray,
  tags,
  WRITE,
} from './route-support.js';
import { updateDocuments } from './update-documents.js';
import { checkNesting, flag, objectBody, readDocument, wireText, withId } from './wire.js';

const FIND_FIELDS = ['query', 'fields', 'sort', 'skip', 'limit'] as const;

function readFind(raw: unknown): { options: FindOptions; plan: ReadPlan } {
  const options = parseFindOptions(objectBody(raw, FIND_FIELDS));
  return {
    options,
    plan: { filter: options.filter, sort: options.sort, skip: options.skip, limit: options.limit },
  };
}

export function registerDocumentRoutes(app: App, env: NosqlEnv): void {
  const base = '/restv2/game/:gameApiKey/mongo/collection/:collectionName';
  // The handlers check their bodies (query errors, NOSQL_BAD_BODY): the schemas are for the document only.
  const route = (name: string, summary: string, config: typeof READ, body: TSchema, answer: TSchema) => ({
    config: { ...config, ...documented({ body, response: { 200: answer } }) },
    bodyLimit: NOSQL_BODY_LIMIT,
    schema: { tags, operationId: opId(env, name), summary, params: CollectionParams, body: Type.Unknown() },
  });

  app.post(
    `${base}/find`,
    route('FindDocuments', 'Find documents', READ, schemas.FindBody, schemas.FindAnswer),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'FIND');
      const { options, plan } = readFind(request.body);
      const projection = parseProjection(options.fields);
      const render =
        projection.kind === 'none'
          ? (doc: Doc) => wireText(doc)
          : (doc: Doc) => wireText(applyProjection(doc, projection));
      return sendArray(env, scope, reply, readBatches(env.pool, scope, plan), render);
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
      const { options, plan } = readFind(request.body);
      parseProjection(options.fields);
      return run(env, scope, async () => {
        const pgPlan = await explainRead(env.pool, scope, plan);
        const names = await indexNamesByPgName(env.pool, scope);
        return { collection: scope.collection, indexesUsed: indexesIn(pgPlan, names), plan: pgPlan };
      });
    },
  );

  app.post(
    `${base}/count`,
    route('CountDocuments', 'Count matching documents', READ, schemas.CountBody, schemas.CountAnswer),
    async (request) => {
      const { scope } = await collectionFor(env, request, 'COUNT');
      const filter = parseFilter(objectBody(request.body, ['query']).query);
      return { count: await run(env, scope, () => countMatches(env.pool, scope, filter)) };
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
    async (request) => {
      const { scope } = await collectionFor(env, request, 'INSERT');
      const raw = request.body;
      const list = Array.isArray(raw) ? raw : [raw];
      if (list.length === 0) throw nosqlErrors.badBody('expected at least one document');
      const docs = list.map((d, i) => withId(readDocument(d, `document ${i}`), env.ctx.clock));
      await run(env, scope, () => insertDocuments(env.pool, scope, docs));
      return docs.map((d) => toWire(d));
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
    async (request) => {
      const { scope } = await collectionFor(env, request, 'INSERT', 'UPDATE');
      const doc = withId(readDocument(request.body, 'the document'), env.ctx.clock);
      await run(env, scope, () => saveDocument(env.pool, scope, doc));
      return toWire(doc);
    },
  );

  app.post(
    `${base}/update`,
    route('UpdateDocuments', 'Update documents', WRITE, schemas.UpdateBody, schemas.UpdateAnswer),
    async (request) => {
      const b = objectBody(request.body, ['query', 'update', 'multi', 'upsert']);
      const upsert = flag(b, 'upsert');
      const { scope } = await collectionFor(
        env,
        request,
        ...(upsert ? (['UPDATE', 'INSERT'] as const) : (['UPDATE'] as const)),
      );
      if (b.update === undefined) throw nosqlErrors.badBody('update is required');
      const req = {
        filter: parseFilter(b.query),
        rawQuery: b.query,
        spec: parseUpdate(b.update),
        multi: flag(b, 'multi'),
        upsert,
      };
      const out = await run(env, scope, () => updateDocuments(env.pool, scope, req, env.ctx.clock));
      return {
        matchedCount: out.matchedCount,
        modifiedCount: out.modifiedCount,
        upsertedCount: out.upsertedId === undefined ? 0 : 1,
        upsertedId: out.upsertedId === undefined ? null : toWire(out.upsertedId),
      };
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
      const b = objectBody(request.body, ['query']);
      if (b.query === undefined)
        throw nosqlErrors.badBody('query is required ({"query": {}} removes every document)');
      if (b.query === null || typeof b.query !== 'object' || Array.isArray(b.query))
        throw nosqlErrors.badBody('query must be an object');
      const filter = parseFilter(b.query);
      const deletedCount = await run(env, scope, () => removeDocuments(env.pool, scope, filter));
      return { deletedCount, message: 'OK' };
    },
  );

  app.post(
    `${base}/aggregate`,
    route('Aggregate', 'Run an aggregation pipeline', READ, schemas.AggregateBody, schemas.AggregateAnswer),
    async (request, reply) => {
      const { scope } = await collectionFor(env, request, 'AGGREGATE');
      checkNesting(request.body);
      const stages = parsePipeline(request.body);
      return sendArray(env, scope, reply, aggregateDocuments(env.pool, scope, stages), (doc: Doc) =>
        wireText(doc),
      );
    },
  );
}

/** API names of the indexes a plan uses, in plan order. */
function indexesIn(plan: unknown, names: Map<string, string>): string[] {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Index Name' && typeof value === 'string') found.add(names.get(value) ?? value);
        else walk(value);
      }
    }
  };
  walk(plan);
  return [...found];
}
