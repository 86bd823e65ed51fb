// Request bodies in (shape, nesting, documents to store) and documents out (extended JSON, streamed arrays).
import { type Doc, fromWire, isDoc, ObjectId, storedText, toWire, type Value } from '../query/values.js';
import { MAX_NESTING } from './db-errors.js';
import { nosqlErrors } from './errors.js';

/** MongoDB's largest document. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A request body nests a document or query at most MAX_NESTING levels below its own wrapper levels. */
export function checkNesting(value: unknown, max = MAX_NESTING + 3): void {
  if (nestingExceeds(value, max)) throw nosqlErrors.tooDeep(MAX_NESTING);
}

// Recursion depth is bounded by `left`, so even a hostile body cannot overflow the stack here.
function nestingExceeds(value: unknown, left: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (left <= 0) return true;
  if (Array.isArray(value)) return value.some((v) => nestingExceeds(v, left - 1));
  if (value instanceof Date || value instanceof ObjectId) return false;
  for (const key of Object.keys(value)) {
    if (nestingExceeds((value as Record<string, unknown>)[key], left - 1)) return true;
  }
  return false;
}

/** The body as a JSON object with only the allowed fields; an absent body is an empty object. */
export function objectBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw nosqlErrors.badBody('expected a JSON object');
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) {
    throw nosqlErrors.badBody(`unknown field "${extra.slice(0, 100)}" (allowed: ${allowed.join(', ')})`);
  }
  checkNesting(body);
  return body as Record<string, unknown>;
}

/** True or false from an optional flag; anything but a boolean is refused (a wrong type never means false). */
export function flag(body: Record<string, unknown>, name: string): boolean {
  const v = body[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw nosqlErrors.badBody(`${name} must be true or false`);
  return v;
}

/** A document to store, from extended JSON: an object without $-keys, _id not an array, not too deep. */
export function readDocument(json: unknown, where: string): Doc {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw nosqlErrors.badBody(`${where} must be a JSON object`);
  }
  checkNesting(json, MAX_NESTING);
  const doc = fromWire(json);
  if (!isDoc(doc)) throw nosqlErrors.badBody(`${where} must be a document, not an extended JSON value`);
  if (Array.isArray(doc._id)) throw nosqlErrors.badId('an _id cannot be an array');
  return doc;
}

/** The document with an _id: its own, or a new ObjectId (made from the clock) placed first. */
export function withId(doc: Doc, clock: () => number): Doc {
  if (Object.hasOwn(doc, '_id')) return doc;
  const out: Doc = { _id: new ObjectId(ObjectId.generate(Math.floor(clock() / 1000))) };
  for (const key of Object.keys(doc)) {
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: doc[key], enumerable: true, writable: true });
    else out[key] = doc[key]!;
  }
  return out;
}

/** The stored JSON text of a document, refused when too large or too deep to store. */
export function storedDocument(doc: Doc): string {
  if (nestingExceeds(doc, MAX_NESTING)) throw nosqlErrors.tooDeep(MAX_NESTING);
  const text = storedText(doc);
  if (text.length > MAX_DOCUMENT_BYTES) throw nosqlErrors.documentTooLarge(Buffer.byteLength(text));
  return text;
}

export function wireText(v: Value): string {
  return JSON.stringify(toWire(v));
}
