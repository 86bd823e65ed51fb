// One processor per pipeline stage: each takes documents one by one and emits its output as it can.
import { GroupAccumulator, type GroupSpec } from './aggregate-group.js';
import { type FilterNode, matchesFilter } from './filter.js';
import { pipelineErrors } from './pipeline-errors.js';
import { applyProjection, type Projection } from './projection.js';
import { compareSortKeys, type SortSpec, sortKeys } from './sort.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

export type Emit = (doc: Doc) => void;

export interface Processor {
  push(doc: Doc, emit: Emit): void;
  flush(emit: Emit): void;
  /** True once no further input can reach the output (a $limit that is full). */
  finished(): boolean;
}

export interface UnwindSpec {
  path: string[];
  includeArrayIndex: string | undefined;
  preserveNullAndEmptyArrays: boolean;
}

const streaming = (push: Processor['push']): Processor => ({ push, flush: () => {}, finished: () => false });

export function matchProcessor(node: FilterNode): Processor {
  return streaming((doc, emit) => {
    if (matchesFilter(node, doc)) emit(doc);
  });
}

export function projectProcessor(projection: Projection, now: Date): Processor {
  return streaming((doc, emit) => emit(applyProjection(doc, projection, now)));
}

export function skipProcessor(n: number): Processor {
  let skipped = 0;
  return streaming((doc, emit) => {
    if (skipped < n) skipped++;
    else emit(doc);
  });
}

export function limitProcessor(n: number): Processor {
  let passed = 0;
  return {
    push: (doc, emit) => {
      if (passed >= n) return;
      passed++;
      emit(doc);
    },
    flush: () => {},
    finished: () => passed >= n,
  };
}

/**
 * Buffers up to `cap` documents and emits them sorted (stable, so ties keep their input order). When only
 * the first `keep` documents can matter (a $limit follows), it trims the buffer as it goes.
 */
export function sortProcessor(spec: SortSpec, cap: number, keep: number | undefined): Processor {
  // Each document's keys are computed once as it arrives, not in every comparison.
  let buffer: Array<{ doc: Doc; keys: Buffer[] }> = [];
  const compare = (a: { keys: Buffer[] }, b: { keys: Buffer[] }) => compareSortKeys(spec, a.keys, b.keys);
  const trimAt = keep === undefined ? Number.POSITIVE_INFINITY : Math.max(keep, Math.min(2 * keep, cap));
  return {
    push: (doc) => {
      buffer.push({ doc, keys: sortKeys(spec, doc) });
      if (buffer.length > trimAt) buffer = buffer.sort(compare).slice(0, keep);
      if (buffer.length > cap) throw pipelineErrors.bufferLimit('$sort', cap);
    },
    flush: (emit) => {
      const sorted = buffer.sort(compare);
      buffer = [];
      for (const item of keep === undefined ? sorted : sorted.slice(0, keep)) emit(item.doc);
    },
    finished: () => false,
  };
}

export function groupProcessor(spec: GroupSpec, cap: number, now: Date): Processor {
  const groups = new GroupAccumulator(spec, cap, now);
  return {
    push: (doc) => groups.add(doc),
    flush: (emit) => {
      for (const doc of groups.results()) emit(doc);
    },
    finished: () => false,
  };
}

/** $count is a group of everything with a count that is an int, or a long past int32; no input, no output. */
export function countProcessor(field: string): Processor {
  let count = 0;
  return {
    push: () => {
      count++;
    },
    flush: (emit) => {
      if (count === 0) return;
      const out: Doc = {};
      setField(out, field, count > 2 ** 31 - 1 ? BigInt(count) : count);
      emit(out);
    },
    finished: () => false,
  };
}

/**
 * $unwind: the path is read through documents only. Each array element replaces the array in place;
 * a non-array value passes as is; null, missing and [] pass only with preserveNullAndEmptyArrays ([] then
 * loses the field). includeArrayIndex gets the index as a long, or null when no array element was taken.
 */
export function unwindProcessor(spec: UnwindSpec): Processor {
  const withIndex = (doc: Doc, index: bigint | null): Doc => {
    if (spec.includeArrayIndex === undefined) return doc;
    const out = { ...doc };
    setField(out, spec.includeArrayIndex, index);
    return out;
  };
  return streaming((doc, emit) => {
    const value = readNested(doc, spec.path);
    if (Array.isArray(value)) {
      if (value.length === 0 && spec.preserveNullAndEmptyArrays)
        emit(withIndex(replaceNested(doc, spec.path, undefined), null));
      value.forEach((item, i) => {
        emit(withIndex(replaceNested(doc, spec.path, item), BigInt(i)));
      });
    } else if (value !== undefined && value !== null) {
      emit(withIndex(doc, null));
    } else if (spec.preserveNullAndEmptyArrays) {
      emit(withIndex(doc, null));
    }
  });
}

function readNested(doc: Doc, path: string[]): Value | undefined {
  let cur: Value | undefined = doc;
  for (const part of path) {
    if (!isDoc(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** A copy of `doc` with the value at `path` replaced in its place (or removed when undefined). */
function replaceNested(doc: Doc, path: string[], value: Value | undefined): Doc {
  const out: Doc = { ...doc };
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length > 0) setField(out, head, replaceNested(doc[head] as Doc, rest, value));
  else if (value === undefined) delete out[head];
  else setField(out, head, value);
  return out;
}
