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
  walkDoc(doc, parts, mode, start, out);
  return out;
}

function walkDoc(doc: Value, parts: string[], mode: WalkMode, start: number, out: Reached[]): void {
  let cur: Value = doc;
  for (let i = start; ; i++) {
    const val: Value | undefined = isDoc(cur) && Object.hasOwn(cur, parts[i]!) ? cur[parts[i]!] : undefined;
    if (val === undefined) {
      out.push(MISSING);
      return;
    }
    if (Array.isArray(val)) {
      walkArray(val, parts, mode, i + 1, out);
      return;
    }
    if (i === parts.length - 1) {
      out.push(val);
      return;
    }
    if (!isDoc(val)) {
      out.push(MISSING);
      return;
    }
    cur = val;
  }
}

function walkArray(arr: Value[], parts: string[], mode: WalkMode, rest: number, out: Reached[]): void {
  if (rest >= parts.length) {
    if (mode === 'whole') out.push(arr);
    else if (mode === 'sort' && arr.length === 0) out.push(EMPTY_ARRAY);
    else {
      // A loop, not push(...arr): spreading an array of a million elements overflows the call stack.
      for (const item of arr) out.push(item);
      if (mode === 'traverse') out.push(arr);
    }
    return;
  }
  const part = parts[rest]!;
  const isNum = /^[0-9]+$/.test(part);
  arr.forEach((e, idx) => {
    const offsetMatch = isNum && part === String(idx);
    if (isDoc(e)) {
      walkDoc(e, parts, mode, rest, out);
      if (offsetMatch) {
        if (rest === parts.length - 1) out.push(e);
        else walkDoc(e, parts, mode, rest + 1, out);
      }
    } else if (offsetMatch) {
      if (rest === parts.length - 1) out.push(e);
      else if (Array.isArray(e)) walkArray(e, parts, mode, rest + 1, out);
    }
  });
}
