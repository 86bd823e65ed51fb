// The core of the document routes: one function per verb, from the request body to the answer. Each is a
// task (compute-tasks.ts): it runs on the event loop when its input is small and on a compute thread when it
// is large, with the same result. Inside, batches of large documents are again handed to a thread.
import type pg from 'pg';
import { parseJsonBody } from '../http/json-body.js';
import { parsePipeline } from '../query/aggregate.js';
import { queryErrors } from '../query/errors.js';
import { parseFilter } from '../query/filter.js';
import { type Hint, parseFindOptions } from '../query/find-options.js';
import { matchPosition } from '../query/match-position.js';
import { applyProjection, parseProjection } from '../query/projection.js';
import { plainInclusion, projectStoredText } from '../query/stored-projection.js';
import { storedTextToWire } from '../query/stored-wire.js';
import { toWire } from '../query/values.js';
import { countMatches } from '../store/document-counts.js';
import { explainRead, parseStored, type ReadPlan, readTextBatches } from '../store/document-reads.js';
import { MULTIKEY_INDEX } from '../store/multikey.js';
import { aggregateDocuments } from './aggregate-documents.js';
import { type CollectionEntry, requireActions } from './collections.js';
import type { DocumentCompute } from './compute-tasks.js';
import { insertDocuments, removeDocuments, saveDocument } from './documents.js';
import { nosqlErrors } from './errors.js';
import { explainInWords } from './explain-words.js';
import { renderPlain } from './find-render.js';
import { indexNamesByPgName, listIndexes } from './indexes.js';
import type { Scope } from './scope.js';
import { updateDocuments } from './update-documents.js';
import { checkNesting, flag, objectBody, readDocument, wireText, withId } from './wire.js';

/** A request body: parsed on the event loop when small, or still its text when large (parsed where it runs). */
export type BodyInput = { value: unknown } | { text: string };

export interface DocumentOp {
  scope: Scope;
  body: BodyInput;
  /** The request's clock reading (new ObjectIds, $currentDate). */
  now: number;
}

export function bodyValue(body: BodyInput): unknown {
  return 'text' in body ? parseJsonBody(body.text) : body.value;
}

/** Prior art's cap on a find or aggregate answer: the JSON text, in bytes. */
const RESPONSE_LIMIT = 4 * 1024 * 1024;

const FIND_FIELDS = ['query', 'fields', 'sort', 'skip', 'limit', 'hint', 'comment', 'maxTimeMS', 'batchSize'];

interface FindRead {
  fields: unknown;
  query: unknown;
  plan: ReadPlan;
  hint: Hint | undefined;
}

function readFind(raw: unknown): FindRead {
  const body = objectBody(raw, FIND_FIELDS);
  const options = parseFindOptions(body);
  parseProjection(options.fields);
  const { filter, sort, skip, limit, maxTimeMs } = options;
  const plan = { filter, sort, skip, limit, maxTimeMs };
  return { fields: options.fields, query: body.query, plan, hint: options.hint };
}

/**
 * A hint must name an index of the collection, by its name or its keys (MongoDB refuses one that does not);
 * PostgreSQL's planner has no hints, so it picks the plan as always.
 */
async function checkHint(db: pg.Pool, scope: Scope, hint: Hint | undefined): Promise<void> {
  if (!hint || hint.kind === 'natural') return;
  const indexes = await listIndexes(db, scope);
  const found = indexes.some((index) =>
    hint.kind === 'name'
      ? index.name === hint.name
      : JSON.stringify(Object.entries(index.key)) === JSON.stringify(hint.keys.map((k) => [k.path, k.dir])),
  );
  if (!found) throw queryErrors.badFindOption('hint', 'names no index of the collection');
}

const textLength = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);

/**
 * The JSON array of `batches`, at most RESPONSE_LIMIT bytes. The answer is built whole before it is sent, so
 * that one past the limit (or a failure while reading) is a proper 400 or 503 and never a cut body. Reading
 * stops at the limit, so an answer holds at most 4 MB in memory.
 */
async function arrayText(batches: AsyncIterable<string[]>): Promise<string> {
  const parts: string[] = [];
  let bytes = 2; // "[" and "]"
  for await (const batch of batches) {
    for (const text of batch) {
      bytes += Buffer.byteLength(text) + (parts.length > 0 ? 1 : 0);
      // Leaving the loop returns the generators, which ends the read.
      if (bytes > RESPONSE_LIMIT) throw nosqlErrors.responseTooLarge(RESPONSE_LIMIT);
      parts.push(text);
    }
  }
  return `[${parts.join(',')}]`;
}

/**
 * Stored documents as wire JSON, projected. A positional projection (`field.$`) reads the position the query
 * matched in each document (match-position.ts).
 */
export function renderDocuments(input: { texts: string[]; fields: unknown; query?: unknown }): string[] {
  const projection = parseProjection(input.fields);
  if (projection.kind === 'none') return input.texts.map(storedTextToWire);
  const keep = plainInclusion(projection);
  if (keep !== undefined) return input.texts.map((text) => projectStoredText(text, keep));
  const filter = projection.positional ? parseFilter(input.query) : undefined;
  const now = new Date();
  return input.texts.map((text) => {
    const doc = parseStored(text);
    const position = filter === undefined ? undefined : matchPosition(filter, doc);
    return wireText(applyProjection(doc, projection, now, position));
  });
}

export async function findDocuments(op: DocumentOp, db: pg.Pool, compute: DocumentCompute): Promise<string> {
  const { fields, query, plan, hint } = readFind(bodyValue(op.body));
  await checkHint(db, op.scope, hint);
  const batches = readTextBatches(db, op.scope, plan);
  // Without projection, the common case, each text is scanned to wire JSON in slices right here.
  if (parseProjection(fields).kind === 'none') return arrayText(renderPlain(batches, compute));
  async function* rendered() {
    for await (const texts of batches) {
      yield await compute.run('render', { texts, fields, query }, textLength(texts));
    }
  }
  return arrayText(rendered());
}

export async function explainFind(op: DocumentOp, db: pg.Pool): Promise<unknown> {
  const { plan, hint } = readFind(bodyValue(op.body));
  await checkHint(db, op.scope, hint);
  const pgPlan = await explainRead(db, op.scope, plan);
  const names = await indexNamesByPgName(db, op.scope);
  const summary = explainInWords(pgPlan, names, {
    sorted: plan.sort.length > 0,
    limited: plan.limit !== undefined,
  });
  return { collection: op.scope.collection, indexesUsed: indexesIn(pgPlan, names), summary, plan: pgPlan };
}

export async function countDocuments(op: DocumentOp, db: pg.Pool): Promise<number> {
  const filter = parseFilter(objectBody(bodyValue(op.body), ['query']).query);
  return countMatches(db, op.scope, filter);
}

/** Inserts an array of documents, or one; answers them as stored (with their _id) as JSON text. */
export async function insertBody(op: DocumentOp, db: pg.Pool): Promise<string> {
  const raw = bodyValue(op.body);
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) throw nosqlErrors.badBody('expected at least one document');
  const docs = list.map((d, i) => withId(readDocument(d, `document ${i}`), () => op.now));
  await insertDocuments(db, op.scope, docs);
  return JSON.stringify(docs.map((d) => toWire(d)));
}

export async function saveBody(op: DocumentOp, db: pg.Pool): Promise<string> {
  const doc = withId(readDocument(bodyValue(op.body), 'the document'), () => op.now);
  await saveDocument(db, op.scope, doc);
  return JSON.stringify(toWire(doc));
}

export interface UpdateAnswer {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
  upsertedId: unknown;
}

/** `{query, update, arrayFilters, multi, upsert}`; an upsert also needs the collection to allow INSERT. */
export async function updateBody(
  op: DocumentOp & { collection: CollectionEntry },
  db: pg.Pool,
  compute: DocumentCompute,
): Promise<UpdateAnswer> {
  const b = objectBody(bodyValue(op.body), ['query', 'update', 'arrayFilters', 'multi', 'upsert']);
  const upsert = flag(b, 'upsert');
  if (upsert) requireActions(op.collection, op.scope.stage, 'INSERT');
  if (b.update === undefined) throw nosqlErrors.badBody('update is required');
  const request = {
    query: b.query,
    update: b.update,
    arrayFilters: b.arrayFilters,
    multi: flag(b, 'multi'),
    upsert,
  };
  const out = await updateDocuments(db, op.scope, request, op.now, compute);
  return {
    matchedCount: out.matchedCount,
    modifiedCount: out.modifiedCount,
    upsertedCount: out.upsertedId === undefined ? 0 : 1,
    upsertedId: out.upsertedId === undefined ? null : toWire(out.upsertedId),
  };
}

export async function removeBody(op: DocumentOp, db: pg.Pool): Promise<number> {
  const b = objectBody(bodyValue(op.body), ['query']);
  if (b.query === undefined)
    throw nosqlErrors.badBody('query is required ({"query": {}} removes every document)');
  if (b.query === null || typeof b.query !== 'object' || Array.isArray(b.query))
    throw nosqlErrors.badBody('query must be an object');
  return removeDocuments(db, op.scope, parseFilter(b.query));
}

/** `collections`: the stage's listing, read when the body may name other collections ($lookup, $unionWith). */
export async function aggregateBody(
  op: DocumentOp & { collections?: CollectionEntry[] | undefined },
  db: pg.Pool,
): Promise<string> {
  const raw = bodyValue(op.body);
  checkNesting(raw);
  const stages = parsePipeline(raw);
  async function* rendered() {
    for await (const docs of aggregateDocuments(db, op.scope, stages, op.collections))
      yield docs.map((d) => wireText(d));
  }
  return arrayText(rendered());
}

/** API names of the indexes a plan uses, in plan order. */
function indexesIn(plan: unknown, names: Map<string, string>): string[] {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Index Name' && typeof value === 'string') {
          if (value !== MULTIKEY_INDEX) found.add(names.get(value) ?? value);
        } else walk(value);
      }
    }
  };
  walk(plan);
  return [...found];
}
