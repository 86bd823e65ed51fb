// MongoDB update semantics in JavaScript: parse an update once, apply it to each matched or upserted document.
import type { FilterNode } from './filter.js';
import { matchPosition } from './match-position.js';
import { updateErrors } from './update-errors.js';
import { type ApplyContext, applyAction } from './update-ops.js';
import type { UpdateSpec } from './update-parse.js';
import { resetPaddingBudget } from './update-paths.js';
import { resolveActions } from './update-positional.js';
import { cloneDoc, identical } from './value-identity.js';
import { type Doc, setField, type Value } from './values.js';

export type { ApplyContext } from './update-ops.js';
export type { UpdateAction, UpdateOperator, UpdateSpec } from './update-parse.js';
export { parseUpdate } from './update-parse.js';
export { seedUpsert } from './upsert-seed.js';

export interface UpdateResult {
  doc: Doc;
  /** False when the update left the document byte-for-byte the same (MongoDB's nModified does not count it). */
  changed: boolean;
}

/**
 * Applies a parsed update to a copy of `doc` (never mutated). For an upsert, pass the seedUpsert() document
 * and isInsert: true; the result then has _id first when it has one (the caller adds an ObjectId otherwise).
 */
export function applyUpdate(doc: Doc, spec: UpdateSpec, ctx: ApplyContext): UpdateResult {
  resetPaddingBudget();
  const next = spec.kind === 'replace' ? replaceDoc(doc, spec.doc) : applyActions(doc, spec, ctx);
  checkId(doc, next);
  const out = ctx.isInsert ? idFirst(next) : next;
  return { doc: out, changed: !identical(doc, out) };
}

function applyActions(doc: Doc, spec: Extract<UpdateSpec, { kind: 'operators' }>, ctx: ApplyContext): Doc {
  const next = cloneDoc(doc);
  if (!spec.dynamic) {
    for (const action of spec.actions) applyAction(next, action, ctx);
    return next;
  }
  // Positional parts resolve against the document as it was, then each concrete path applies in order.
  for (const { action, path } of resolveActions(doc, spec.actions, spec.arrayFilters, ctx.position)) {
    applyAction(next, { ...action, path, field: path.join('.') }, ctx);
  }
  return next;
}

/**
 * The position a `$` of the update stands for in `doc`: the array offset MongoDB's matcher records for the
 * query (match-position.ts); undefined when the update has no `$` or the query records none.
 */
export function positionFor(spec: UpdateSpec, filter: FilterNode, doc: Doc): number | undefined {
  return spec.kind === 'operators' && spec.positional ? matchPosition(filter, doc) : undefined;
}

/** A replacement keeps the original _id (first) unless it names the same _id itself. */
function replaceDoc(doc: Doc, replacement: Doc): Doc {
  const copy = cloneDoc(replacement);
  if (Object.hasOwn(copy, '_id') || !Object.hasOwn(doc, '_id')) return copy;
  const out: Doc = { _id: doc._id! };
  for (const key of Object.keys(copy)) setField(out, key, copy[key]!);
  return out;
}

/** _id may be set where there was none (an upsert), never changed or removed; it can never be an array. */
function checkId(before: Doc, after: Doc): void {
  const had = Object.hasOwn(before, '_id');
  const has = Object.hasOwn(after, '_id');
  if (had && (!has || !identical(before._id, after._id))) throw updateErrors.immutableId();
  if (has && Array.isArray(after._id as Value)) throw updateErrors.badId();
}

function idFirst(doc: Doc): Doc {
  if (!Object.hasOwn(doc, '_id') || Object.keys(doc)[0] === '_id') return doc;
  const out: Doc = { _id: doc._id! };
  for (const key of Object.keys(doc)) if (key !== '_id') setField(out, key, doc[key]!);
  return out;
}
