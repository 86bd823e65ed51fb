import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { applyProjection, parseProjection, parseProjectStage } from './projection.js';
import type { Doc, Value } from './values.js';

const project = (doc: Doc, fields: Value) => applyProjection(doc, parseProjection(fields));

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  throw new Error('expected an error');
}

describe('parseProjection', () => {
  it('inclusion mixed with exclusion → 400 QUERY_BAD_PROJECTION', () => {
    expect(codeOf(() => parseProjection({ a: 1, b: 0 }))).toBe('400 QUERY_BAD_PROJECTION');
  });

  it('_id excluded in an inclusion, or included in an exclusion → accepted', () => {
    expect(parseProjection({ a: 1, _id: 0 }).kind).toBe('inclusion');
    expect(parseProjection({ a: 0, _id: 1 }).kind).toBe('exclusion');
  });

  it('$meta and a positional part not at the end → 400 QUERY_UNSUPPORTED_PROJECTION_OPERATOR', () => {
    for (const fields of [{ s: { $meta: 'textScore' } }, { 'a.$.b': 1 }, { 'a.$[]': 1 }]) {
      expect(codeOf(() => parseProjection(fields))).toBe('400 QUERY_UNSUPPORTED_PROJECTION_OPERATOR');
    }
  });

  it('a path and a path inside it → 400 QUERY_BAD_PROJECTION (path collision)', () => {
    expect(() => parseProjection({ a: 1, 'a.b': 1 })).toThrow('Path collision at a.b');
    expect(codeOf(() => parseProjection({ a: { b: 1 }, 'a.b': 1 }))).toBe('400 QUERY_BAD_PROJECTION');
  });

  it('an empty sub-projection or a non-document → 400 QUERY_BAD_PROJECTION (strings are literals, 4.4+)', () => {
    expect(parseProjection({ a: 'x' }).kind).toBe('inclusion');
    expect(codeOf(() => parseProjection({ a: {} }))).toBe('400 QUERY_BAD_PROJECTION');
    expect(codeOf(() => parseProjection([]))).toBe('400 QUERY_BAD_PROJECTION');
  });
});

describe('applyProjection', () => {
  const doc: Doc = { _id: 1, a: { b: 1, c: 2 }, d: [{ b: 1, c: 2 }, 5, { c: 3 }, [{ b: 4, c: 4 }]], e: 'x' };

  it('an empty projection → the whole document', () => {
    expect(project(doc, {})).toEqual(doc);
  });

  it('inclusion → listed fields plus _id, in document order', () => {
    const out = project(doc, { e: 1, a: true });
    expect(out).toEqual({ _id: 1, a: { b: 1, c: 2 }, e: 'x' });
    expect(Object.keys(out)).toEqual(['_id', 'a', 'e']);
  });

  it('inclusion with _id: 0 → no _id', () => {
    expect(project(doc, { e: 1, _id: 0 })).toEqual({ e: 'x' });
  });

  it('{_id: 1} alone → only the _id; {_id: 0} alone → everything else', () => {
    expect(project(doc, { _id: 1 })).toEqual({ _id: 1 });
    expect(project({ _id: 1, e: 2 }, { _id: 0 })).toEqual({ e: 2 });
  });

  it('a dotted inclusion through an array of documents → each element projected, scalars dropped', () => {
    expect(project(doc, { 'd.b': 1 })).toEqual({ _id: 1, d: [{ b: 1 }, {}, [{ b: 4 }]] });
  });

  it('a nested inclusion document → the same as the dotted path', () => {
    expect(project(doc, { a: { b: 1 } })).toEqual(project(doc, { 'a.b': 1 }));
    expect(project(doc, { a: { b: 1 } })).toEqual({ _id: 1, a: { b: 1 } });
  });

  it('a dotted inclusion through a scalar or a missing field → the field is left out', () => {
    expect(project({ _id: 1, a: 5 }, { 'a.b': 1 })).toEqual({ _id: 1 });
    expect(project({ _id: 1, a: {} }, { 'a.b': 1 })).toEqual({ _id: 1, a: {} });
  });

  it('exclusion → everything but the listed paths; scalars in arrays stay', () => {
    expect(project(doc, { 'd.c': 0, e: 0 })).toEqual({
      _id: 1,
      a: { b: 1, c: 2 },
      d: [{ b: 1 }, 5, {}, [{ b: 4 }]],
    });
  });

  it('exclusion with _id: 1 → _id kept, the rest excluded as listed', () => {
    expect(project({ _id: 1, a: 1, b: 2 }, { _id: 1, a: 0 })).toEqual({ _id: 1, b: 2 });
  });

  it('non-zero numbers and false → include and exclude', () => {
    expect(project({ _id: 1, a: 1, b: 2 }, { a: 5 })).toEqual({ _id: 1, a: 1 });
    expect(project({ _id: 1, a: 1, b: 2 }, { a: false })).toEqual({ _id: 1, b: 2 });
  });

  it('the input document → never mutated', () => {
    const before = structuredClone(doc);
    project(doc, { 'd.c': 0 });
    project(doc, { 'd.b': 1 });
    expect(doc).toEqual(before);
  });
});

describe('parseProjectStage ($project)', () => {
  it('field paths, $literal and constant strings → computed fields after the included ones', () => {
    const p = parseProjectStage({ x: '$a.b', k: { $literal: '$notapath' }, s: 'text', e: 1 });
    const out = applyProjection({ _id: 1, e: 2, a: { b: 3 } }, p);
    expect(out).toEqual({ _id: 1, e: 2, x: 3, k: '$notapath', s: 'text' });
    expect(Object.keys(out)).toEqual(['_id', 'e', 'x', 'k', 's']);
  });

  it('a field path through an array of documents → the array of found values', () => {
    const p = parseProjectStage({ x: '$a.b', _id: 0 });
    expect(applyProjection({ _id: 1, a: [{ b: 1 }, { c: 2 }, { b: 3 }, 7] }, p)).toEqual({ x: [1, 3] });
  });

  it('a field path to a missing field → the field is left out', () => {
    expect(applyProjection({ _id: 1 }, parseProjectStage({ x: '$nope' }))).toEqual({ _id: 1 });
  });

  it('{} → 400 QUERY_BAD_PIPELINE_STAGE; an unsupported expression operator → 400 naming it', () => {
    expect(codeOf(() => parseProjectStage({}))).toBe('400 QUERY_BAD_PIPELINE_STAGE');
    expect(() => parseProjectStage({ x: { $sin: 1 } })).toThrow('$sin');
  });

  it('a computed field with exclusions → 400 QUERY_BAD_PROJECTION', () => {
    expect(codeOf(() => parseProjectStage({ x: '$a', b: 0 }))).toBe('400 QUERY_BAD_PROJECTION');
  });
});
