// Where a positional `$` points: the array offset MongoDB's matcher records while it matches the query
// (MatchDetails' elemMatchKey), for positional updates and the positional projection.
//
// As MongoDB's classic matcher on the canonical query: a predicate on a path records the offset of the first
// element it matches (the index in the outermost array the path crosses; for $elemMatch without such an
// array, the index of the matching element); the children of an $and are matched in the canonical order
// (MongoDB sorts them by operator kind, then path), and the last one that records wins; $or, $nor and $not
// record nothing (a one-clause $or or $and is its clause). A disjunction of equalities and regular
// expressions on one path (what `$in` with regular expressions parses to) is MongoDB's one $in predicate.

import type { ElemPred, FilterNode } from './filter.js';
import { isWholeArrayPred } from './filter.js';
import { matchesElement, matchesFilter } from './filter-match.js';
import { walkPathWithOffsets } from './path-walk.js';
import { type Doc, isDoc, type Value } from './values.js';

interface Details {
  key: number | undefined;
}

/** The recorded position when `doc` matches `node`; undefined when it does not match or records none. */
export function matchPosition(node: FilterNode, doc: Doc): number | undefined {
  const d: Details = { key: undefined };
  return matchWithDetails(node, doc, d) ? d.key : undefined;
}

function matchWithDetails(node: FilterNode, doc: Doc, d: Details): boolean {
  switch (node.kind) {
    case 'and': {
      const children = canonicalOrder(flatten(node.children));
      return children.every((c) => matchWithDetails(c, doc, d));
    }
    case 'or': {
      if (node.children.length === 1) return matchWithDetails(node.children[0]!, doc, d);
      const same = onePathIn(node.children);
      if (same) return matchPath(same.parts, same.preds, doc, d);
      return matchesFilter(node, doc);
    }
    case 'path':
      return matchPath(node.parts, [node.pred], doc, d);
    default:
      return matchesFilter(node, doc);
  }
}

function flatten(children: FilterNode[]): FilterNode[] {
  const out: FilterNode[] = [];
  for (const c of children) {
    if (c.kind === 'and') for (const g of flatten(c.children)) out.push(g);
    else out.push(c);
  }
  return out;
}

/** MongoDB's MatchExpression::MatchType order (matcher/expression.h), which the canonical query sorts by. */
function rank(node: FilterNode): number {
  switch (node.kind) {
    case 'and':
      return 0;
    case 'or':
      return onePathIn(node.children) ? 13 : 1;
    case 'not':
      return 18;
    case 'nor':
      return 19;
    case 'expr':
      return 23;
    case 'const':
      return node.value ? 25 : 24;
    case 'path':
      return predRank(node.pred);
  }
}

const CMP_RANK = { eq: 5, lte: 6, lt: 7, gt: 8, gte: 9 } as const;
const BITS_RANK = { allSet: 14, allClear: 15, anySet: 16, anyClear: 17 } as const;

function predRank(p: ElemPred): number {
  switch (p.op) {
    case 'elemMatchDoc':
      return 2;
    case 'elemMatchValue':
      return 3;
    case 'size':
      return 4;
    case 'cmp':
      return CMP_RANK[p.cmp];
    case 'regex':
      return 10;
    case 'mod':
      return 11;
    case 'exists':
      return 12;
    case 'in':
      return 13;
    case 'bits':
      return BITS_RANK[p.mode];
    case 'type':
      return 20;
    default:
      return 18;
  }
}

function pathOf(node: FilterNode): string {
  if (node.kind === 'path') return node.path;
  if (node.kind === 'or') return onePathIn(node.children)?.path ?? '';
  return '';
}

function canonicalOrder(children: FilterNode[]): FilterNode[] {
  return children
    .map((node, i) => ({ node, i, r: rank(node), p: pathOf(node) }))
    .sort((a, b) => a.r - b.r || (a.p < b.p ? -1 : a.p > b.p ? 1 : a.i - b.i))
    .map((x) => x.node);
}

/** An $or of equality, $in and regex predicates on one path: MongoDB's single $in. */
function onePathIn(children: FilterNode[]): { path: string; parts: string[]; preds: ElemPred[] } | undefined {
  const first = children[0];
  if (first?.kind !== 'path') return undefined;
  const preds: ElemPred[] = [];
  for (const c of children) {
    if (c.kind !== 'path' || c.path !== first.path) return undefined;
    const op = c.pred.op;
    if (!(op === 'in' || op === 'regex' || (op === 'cmp' && c.pred.cmp === 'eq'))) return undefined;
    preds.push(c.pred);
  }
  return { path: first.path, parts: first.parts, preds };
}

function matchPath(parts: string[], preds: ElemPred[], doc: Doc, d: Details): boolean {
  const whole = preds.length === 1 && isWholeArrayPred(preds[0]!);
  const { values, offsets } = walkPathWithOffsets(doc, parts, whole ? 'whole' : 'traverse');
  for (let i = 0; i < values.length; i++) {
    const r = values[i]!;
    const pred = preds.find((p) => matchesElement(p, r));
    if (pred === undefined) continue;
    const offset = offsets[i];
    if (offset !== undefined) d.key = offset;
    else if (Array.isArray(r)) {
      const inner = elemMatchIndex(pred, r);
      if (inner !== undefined) d.key = inner;
    }
    return true;
  }
  return false;
}

/** The index of the element an $elemMatch matched (MongoDB records it itself). */
export function elemMatchIndex(pred: ElemPred, arr: Value[]): number | undefined {
  if (pred.op === 'elemMatchValue') {
    const i = arr.findIndex((e) => pred.preds.every((p) => matchesElement(p, e)));
    return i < 0 ? undefined : i;
  }
  if (pred.op === 'elemMatchDoc') {
    const i = arr.findIndex((e) => (isDoc(e) || Array.isArray(e)) && matchesFilter(pred.filter, asDoc(e)));
    return i < 0 ? undefined : i;
  }
  return undefined;
}

function asDoc(e: Value): Doc {
  if (!Array.isArray(e)) return e as Doc;
  const out: Doc = {};
  e.forEach((item, i) => {
    out[String(i)] = item;
  });
  return out;
}
