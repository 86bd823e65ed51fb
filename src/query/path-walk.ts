// MongoDB's element iterator over a dotted path (matcher/path.cpp), the JS twin of pb_walk in migration 0003.
import { isDoc, type Value } from './values.js';

/** What a path reaches: a value, or MISSING where MongoDB's iterator yields a missing element. */
export const MISSING = Symbol('missing');
/** Sort mode only: a leaf array that is empty. */
export const EMPTY_ARRAY = Symbol('emptyArray');
export type Reached = Value | typeof MISSING | typeof EMPTY_ARRAY;

/**
 * 'traverse': leaf arrays give their elements, then themselves (filters). 'whole': leaf arrays give only
 * themselves ($size, $elemMatch). 'sort': leaf arrays give only their elements; an empty one gives EMPTY_ARRAY.
 */
export type WalkMode = 'traverse' | 'whole' | 'sort';

export function walkPath(doc: Value, parts: string[], mode: WalkMode, start = 0): Reached[] {
  const out: Reached[] = [];
  walkDoc(doc, parts, mode, start, out, undefined);
  return out;
}

/**
 * The same walk, with each reached value's array offset as MongoDB's iterator gives it (the index in the
 * outermost array crossed implicitly; an explicit numeric part sets none): where a positional `$` points.
 */
export function walkPathWithOffsets(
  doc: Value,
  parts: string[],
  mode: WalkMode,
): { values: Reached[]; offsets: Array<number | undefined> } {
  const values: Reached[] = [];
  const offsets: Array<number | undefined> = [];
  walkDoc(doc, parts, mode, 0, values, offsets);
  return { values, offsets };
}

type Offsets = Array<number | undefined> | undefined;

function push(out: Reached[], offs: Offsets, v: Reached, offset: number | undefined): void {
  out.push(v);
  if (offs) offs.push(offset);
}

function walkDoc(
  doc: Value,
  parts: string[],
  mode: WalkMode,
  start: number,
  out: Reached[],
  offs: Offsets,
): void {
  let cur: Value = doc;
  for (let i = start; ; i++) {
    const val: Value | undefined = isDoc(cur) && Object.hasOwn(cur, parts[i]!) ? cur[parts[i]!] : undefined;
    if (val === undefined) {
      push(out, offs, MISSING, undefined);
      return;
    }
    if (Array.isArray(val)) {
      walkArray(val, parts, mode, i + 1, out, offs);
      return;
    }
    if (i === parts.length - 1) {
      push(out, offs, val, undefined);
      return;
    }
    if (!isDoc(val)) {
      push(out, offs, MISSING, undefined);
      return;
    }
    cur = val;
  }
}

function walkArray(
  arr: Value[],
  parts: string[],
  mode: WalkMode,
  rest: number,
  out: Reached[],
  offs: Offsets,
): void {
  if (rest >= parts.length) {
    if (mode === 'whole') push(out, offs, arr, undefined);
    else if (mode === 'sort' && arr.length === 0) out.push(EMPTY_ARRAY);
    else {
      // A loop, not push(...arr): spreading an array of a million elements overflows the call stack.
      if (offs) for (let idx = 0; idx < arr.length; idx++) push(out, offs, arr[idx]!, idx);
      else for (const item of arr) out.push(item);
      if (mode === 'traverse') push(out, offs, arr, undefined);
    }
    return;
  }
  const part = parts[rest]!;
  const isNum = /^[0-9]+$/.test(part);
  arr.forEach((e, idx) => {
    const offsetMatch = isNum && part === String(idx);
    if (isDoc(e)) {
      const from = out.length;
      walkDoc(e, parts, mode, rest, out, offs);
      // Implicit traversal: this array's index overrides any deeper one (the outermost offset wins).
      if (offs) for (let k = from; k < out.length; k++) offs[k] = idx;
      if (offsetMatch) {
        if (rest === parts.length - 1) push(out, offs, e, undefined);
        else walkDoc(e, parts, mode, rest + 1, out, offs);
      }
    } else if (offsetMatch) {
      if (rest === parts.length - 1) push(out, offs, e, undefined);
      else if (Array.isArray(e)) walkArray(e, parts, mode, rest + 1, out, offs);
    }
  });
}
