// A find's plain inclusion projection ({displayName: 1, level: 1}, with or without _id) rendered straight from
// the stored JSON text: the kept top-level fields, in the order applyProjection gives them, converted to wire
// JSON by storedToWire. No in-memory document is built, cloned and written again (the bench's Q4 renders its
// 20 documents in 38 µs against 58 µs). Anything else (dotted paths, $slice, $elemMatch, positional, computed
// fields, exclusions) goes through applyProjection as before.
import type { Projection } from './projection.js';
import { storedToWire } from './stored-form.js';

/** The top-level fields a projection keeps when it is a plain inclusion of top-level fields; else undefined. */
export function plainInclusion(p: Projection): Set<string> | undefined {
  if (p.kind !== 'inclusion' || p.positional) return undefined;
  const keep = new Set<string>();
  for (const [key, node] of p.tree) {
    if (node.kind === 'include') keep.add(key);
    // In an inclusion projection only _id can be excluded (parseProjection refuses any other mix).
    else if (node.kind !== 'exclude') return undefined;
  }
  return keep;
}

/**
 * The wire JSON of a stored document's text with only `keep`'s top-level fields. Order as fromStored then
 * applyProjection give it: the document's order ("$o" when stored, else the stored key order), assigned into
 * a plain object, so integer-like names come first as they do in the value model.
 */
export function projectStoredText(text: string, keep: Set<string>): string {
  const obj = JSON.parse(text) as Record<string, unknown>;
  const order = Array.isArray(obj.$o) ? (obj.$o as string[]) : Object.keys(obj);
  const out: Record<string, unknown> = {};
  for (const key of order) {
    if (!keep.has(key) || !Object.hasOwn(obj, key)) continue;
    const item = storedToWire(obj[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return JSON.stringify(out);
}
